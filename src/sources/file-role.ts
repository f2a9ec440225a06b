import { posix } from 'node:path';

/**
 * What a file is for. Search prefers `implementation` unless a query asks for tests,
 * examples or docs; every role can be filtered on (`--role`, `--exclude-role`).
 */
export const fileRoles = ['implementation', 'test', 'fixture', 'example', 'docs', 'generated', 'config', 'lock'] as const;
export type FileRole = (typeof fileRoles)[number];

/** Bumps whenever classification changes, so the index re-classifies its files. */
export const FILE_ROLE_VERSION = 3;

/** Lock files of every common package manager (also excluded from indexing by default). */
export const lockFileNames: readonly string[] = [
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lock',
  'bun.lockb',
  'deno.lock',
  'Cargo.lock',
  'poetry.lock',
  'Pipfile.lock',
  'pdm.lock',
  'uv.lock',
  'pixi.lock',
  'conda-lock.yml',
  'Gemfile.lock',
  'composer.lock',
  'go.sum',
  'go.work.sum',
  'flake.lock',
  'mix.lock',
  'pubspec.lock',
  'Podfile.lock',
  'Package.resolved',
  'packages.lock.json',
  'paket.lock',
  'gradle.lockfile',
  'renv.lock',
  'Manifest.toml',
  'shard.lock',
  'rebar.lock',
  'stack.yaml.lock',
  'cabal.project.freeze',
  'elm-stuff.lock',
  '.terraform.lock.hcl',
];
const lockNames = new Set(lockFileNames.map((name) => name.toLowerCase()));

// Folder names, compared lower-cased, that say what everything below them is for.
const generatedFolders = new Set(['vendor', 'vendors', 'third_party', 'third-party', 'thirdparty', '__generated__', 'generated']);
const fixtureFolders = new Set(['fixtures', 'fixture', '__fixtures__', 'testdata', 'test-data', 'test_data', '__snapshots__', 'snapshots', '__mocks__', 'mocks', 'golden', 'testfixtures']);
const testFolders = new Set([
  'test',
  'tests',
  '__tests__',
  'spec',
  'specs',
  'e2e',
  'integration-tests',
  'integration_tests',
  'test-dts',
  'dts-test',
  'benches',
  'bench',
  'benchmark',
  'benchmarks',
  'cypress',
  'playwright',
  'unittests',
  'testing',
]);
const exampleFolders = new Set(['example', 'examples', '_examples', 'demo', 'demos', 'sample', 'samples', 'playground', 'playgrounds', 'cookbook', 'tutorial', 'tutorials']);
const docsFolders = new Set(['docs', 'doc', 'documentation', 'website', 'site', 'changelogs', 'rfcs']);

const docsLanguages = new Set(['markdown', 'restructuredtext', 'text']);
/** Prose by name, whatever the language detector said (`LICENSE-MIT`, `CHANGES.html`); never `history.ts`. */
const proseName =
  /^(readme|changelog|changes|contributing|license|licence|copying|authors|history|notice|security|code_of_conduct|support)([-_][\w-]+)?(\.(md|markdown|mdx|rst|txt|adoc|org|html?))?$/i;
const configLanguages = new Set(['json', 'yaml', 'toml', 'ini', 'xml', 'hcl', 'dockerfile', 'make', 'cmake']);

const testFileName = [
  /\.(test|spec|tests|specs|e2e|bench|test-d|spec-d)\.[a-z0-9]+$/i, // JS/TS and friends
  /^test_.+\.py$/i,
  /_tests?\.py$/i,
  /^conftest\.py$/i, // pytest
  /_test\.go$/i, // go test
  /_(spec|test)\.rb$/i, // RSpec, minitest
  /(Test|Tests|IT|Spec)\.(java|kt|kts|scala|cs|php|swift|groovy)$/, // JUnit, xUnit, PHPUnit, XCTest
  /_test\.(exs|dart|cc|cpp|c)$/i,
  /^test_.+\.(c|cc|cpp|rs)$/i,
];
const generatedFileName = [/\.min\.(js|css)$/i, /\.(generated|gen|g)\.[a-z]+$/i, /\.designer\.cs$/i, /_pb2(_grpc)?\.pyi?$/i, /\.pb(\.gw)?\.go$/i, /_generated\.go$/i, /\.snap$/i];
const configFileName = [
  /^\.[\w.-]*rc(\.(js|cjs|mjs|json|ya?ml|toml))?$/i,
  /\.config\.(js|cjs|mjs|ts|mts|cts|json)$/i,
  /^tsconfig.*\.json$/i,
  /^jsconfig.*\.json$/i,
  /^(package|composer|deno|bower|lerna|nx|turbo|vercel|netlify)\.json$/i,
  /^(setup\.cfg|setup\.py|pyproject\.toml|tox\.ini|noxfile\.py|manifest\.in|pipfile|procfile|vagrantfile|brewfile|cargo\.toml|go\.mod|go\.work|gemfile|rakefile|makefile|dockerfile|justfile|pom\.xml|build\.gradle(\.kts)?|settings\.gradle(\.kts)?)$/i,
  /^(requirements|constraints)([-_.][\w.-]*)?\.(txt|in)$/i,
  /^\.(editorconfig|gitattributes|gitignore|gitmodules|git-blame-ignore-revs|mailmap|lociignore|npmignore|dockerignore|prettierignore|eslintignore|nvmrc|node-version|python-version|ruby-version|tool-versions)$/i,
  /^(codeowners|py\.typed)$/i,
];

// Content that marks a test or generated file wherever it sits. Only looked for when the
// path says nothing, and only in the head of the file (cheap, and where the markers are).
const generatedMarker = /@generated\b|\bcode generated\b.*\bdo not edit\b|\bauto-?generated\b.*\b(do not|don't) (edit|modify)\b/i;
const jsTestCalls = /^[ \t]*(describe|it|test|suite|bench)(\.(only|skip|each|concurrent|todo))?\s*\(\s*['"`]/gm;
const jsTestImport = /from\s+['"](vitest|@jest\/globals|mocha|node:test|ava|uvu|@playwright\/test|bun:test)['"]/;
const pythonTest = /^(\s*def test_\w+\s*\(|class Test\w*\s*[(:]|import pytest\b|from pytest\b)/gm;
const rustTestModule = /^#!\[cfg\(test\)\]/m;
const HEAD_BYTES = 8_000;

/**
 * Classifies a file by its path (folders, names, framework conventions per language) and,
 * when the path is silent, by markers in its first few kilobytes (`describe(`, `def test_`,
 * `@generated`). The first role that fits wins, most specific first.
 */
export function classifyFileRole(path: string, language: string, text?: string): FileRole {
  const normalized = path.replace(/\\/g, '/');
  const base = posix.basename(normalized);
  const lowerBase = base.toLowerCase();
  if (lockNames.has(lowerBase) || /\.lockfile$/i.test(base)) return 'lock';
  const folders = normalized
    .split('/')
    .slice(0, -1)
    .map((folder) => folder.toLowerCase());
  if (folders.some((folder) => generatedFolders.has(folder)) || generatedFileName.some((pattern) => pattern.test(base))) return 'generated';
  if (folders.some((folder) => fixtureFolders.has(folder))) return 'fixture';
  if (testFileName.some((pattern) => pattern.test(base))) return 'test';
  // The outermost folder that names a purpose decides: `examples/testing/main.rs` is an example, `test/examples/app.js` a test.
  const purpose = folders.find((folder) => testFolders.has(folder) || exampleFolders.has(folder));
  if (purpose !== undefined) return testFolders.has(purpose) ? 'test' : 'example';
  if (/^(example|demo|sample)s?[._-]/i.test(base)) return 'example';
  if (configFileName.some((pattern) => pattern.test(base))) return 'config';
  const prose = docsLanguages.has(language) || proseName.test(base);
  // A tool's folder holds its settings; the prose in it (`.github/CONTRIBUTING.md`, issue templates) is docs.
  if (!prose && (folders[0] === '.github' || folders[0] === '.vscode' || folders[0] === '.circleci')) return 'config';
  if (prose || folders.some((folder) => docsFolders.has(folder))) return 'docs';
  if (configLanguages.has(language)) return 'config';
  if (text !== undefined) return roleFromContent(language, text.length > HEAD_BYTES ? text.slice(0, HEAD_BYTES) : text);
  return 'implementation';
}

function roleFromContent(language: string, head: string): FileRole {
  if (generatedMarker.test(head)) return 'generated';
  if (language === 'typescript' || language === 'tsx' || language === 'javascript') {
    if (jsTestImport.test(head) || countMatches(head, jsTestCalls) >= 2) return 'test';
  } else if (language === 'python') {
    if (countMatches(head, pythonTest) >= 2) return 'test';
  } else if (language === 'rust') {
    if (rustTestModule.test(head)) return 'test';
  }
  return 'implementation';
}

function countMatches(text: string, pattern: RegExp): number {
  pattern.lastIndex = 0;
  let count = 0;
  while (pattern.exec(text) !== null && count < 2) count++;
  pattern.lastIndex = 0;
  return count;
}

const NAMES_A_TEST = /test|spec|e2e/i;

/**
 * The file a test is about, as a name stem (`compose.test.ts` → `compose`, `test_sessions.py`
 * → `sessions`, `router_test.go` → `router`); undefined when the name says nothing.
 */
export function testSubjectStem(path: string): string | undefined {
  const base = posix.basename(path.replace(/\\/g, '/'));
  // Each form below holds one of these words: a name without them is no test's (most names, read at every search).
  if (!NAMES_A_TEST.test(base) && !base.includes('IT')) return undefined;
  const stem = base
    .replace(/\.(test|spec|tests|specs|e2e|test-d|spec-d)(\.[a-z0-9]+)+$/i, '')
    .replace(/^test_/i, '')
    .replace(/_(test|tests|spec)(\.[a-z0-9]+)$/i, '')
    .replace(/(Tests?|IT|Spec)(\.[a-z0-9]+)$/, '')
    .replace(/\.[a-z0-9]+$/i, '');
  const original = base.replace(/\.[a-z0-9]+$/i, '');
  return stem && stem !== original ? stem.toLowerCase() : undefined;
}

/** The name stem of any file (`src/compose.ts` → `compose`), for pairing tests with subjects. */
export function fileStem(path: string): string {
  return posix
    .basename(path.replace(/\\/g, '/'))
    .replace(/\.[^.]+$/, '')
    .toLowerCase();
}

// Words, as typed (lower-cased, not stemmed), that ask for a role ranking would otherwise push down.
const askingWords: ReadonlyArray<{ pattern: RegExp; roles: readonly FileRole[] }> = [
  { pattern: /^(tests?|testing|tested|specs?|unittests?|e2e|pytest|jest|vitest|mocha|mocks?|mocked|mocking|asserts?|assertions?)$/, roles: ['test', 'fixture'] },
  { pattern: /^(fixtures?|snapshots?|testdata|golden)$/, roles: ['fixture'] },
  { pattern: /^(examples?|demos?|samples?|playgrounds?|tutorials?|cookbooks?)$/, roles: ['example'] },
  { pattern: /^(docs?|documentation|documented|readme|guides?|changelogs?|tutorials?)$/, roles: ['docs'] },
  { pattern: /^(configs?|configuration|configurations|tsconfig|settings|lockfiles?|lock)$/, roles: ['config'] },
  { pattern: /^(generated|vendored|vendor)$/, roles: ['generated'] },
];

/** The roles a query asks for by name ("… tests", "example of …", "docs"), which the role priors then leave alone. */
export function rolesAskedFor(query: string): Set<FileRole> {
  const asked = new Set<FileRole>();
  for (const word of query.toLowerCase().split(/[^a-z0-9]+/)) {
    if (word === '') continue;
    for (const { pattern, roles } of askingWords) if (pattern.test(word)) for (const role of roles) asked.add(role);
  }
  return asked;
}
