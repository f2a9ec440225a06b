import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Language as LanguageType, Parser as ParserType } from '@vscode/tree-sitter-wasm';

const require = createRequire(import.meta.url);

interface TreeSitterModule {
  Parser: typeof ParserType;
  Language: typeof LanguageType;
}

let runtime: Promise<{ module: TreeSitterModule; folder: string }> | undefined;
const parsers = new Map<string, Promise<ParserType>>();

/** The WASM runtime is initialised once per process, on first use. */
function loadRuntime(): Promise<{ module: TreeSitterModule; folder: string }> {
  runtime ??= (async () => {
    const main = require.resolve('@vscode/tree-sitter-wasm');
    const folder = dirname(main);
    const module = require(main) as TreeSitterModule;
    await module.Parser.init({ locateFile: (name: string) => join(folder, name) });
    return { module, folder };
  })();
  return runtime;
}

/** One parser per grammar, created on first use (grammars are 0.1–5 MB of WASM each). */
export function parserFor(grammar: string): Promise<ParserType> {
  let parser = parsers.get(grammar);
  if (!parser) {
    parser = (async () => {
      const { module, folder } = await loadRuntime();
      const language = await module.Language.load(join(folder, `tree-sitter-${grammar}.wasm`));
      const instance = new module.Parser();
      instance.setLanguage(language);
      return instance;
    })();
    // A failed load is not cached, so a transient failure can be retried.
    parser.catch(() => parsers.delete(grammar));
    parsers.set(grammar, parser);
  }
  return parser;
}
