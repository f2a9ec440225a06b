// Path conventions shared by the code-search evaluation scripts: which files are tests and
// which are not implementation at all, across the languages of the question sets (JS/TS,
// Python, Go, Rust). Paths are relative, with forward slashes.

const testFolder = /(^|\/)(tests?|__tests__|__mocks__|spec|specs|testdata|test_helpers|runtime-tests|e2e)(\/|$)/;
const testFile = /(\.|_|-)(test|spec|tests)\.[cm]?[jt]sx?$|_test\.(go|py|rs)$|(^|\/)test_[^/]*\.py$|(^|\/)conftest\.py$|(^|\/)[^/]*\.(test|spec)\.[a-z]+$/;
const otherNonImplementation = /(^|\/)(_?examples?|docs?|benches|benchmarks?|fixtures?|perf-measures|build)(\/|$)|\.d\.ts$|\.(md|mdx|rst|txt|json|ya?ml|toml|lock)$/;

/** A test file or a file under a test folder. */
export function isTestPath(path) {
  return testFolder.test(path) || testFile.test(path);
}

/** Tests, examples, docs, benches, fixtures, build scripts, declarations and data files. */
export function isNonImplementationPath(path) {
  return isTestPath(path) || otherNonImplementation.test(path);
}
