/**
 * Layer rules for src/ (CONVENTIONS.md rule 16): imports only go down this list, never
 * up, never in a circle. Folders on one line are side by side and may not import each
 * other. Tests (`*.test.ts`) and test-support may reach anywhere; `npm run check:layers`.
 */
const layers = [
  // Where the package's own files are (models/, workers), wherever the build put the code.
  ['package-files.ts'],
  ['errors', 'version.ts'],
  // The one HTTP client core (timeouts, retries, Retry-After, error codes): low enough for
  // every provider family (embed, llm, context's rerankers) to share it.
  ['http-client'],
  ['config'],
  ['sources'],
  ['chunk'],
  ['lexical'],
  ['embed', 'llm'],
  ['store'],
  ['retrieve'],
  ['context'],
  ['indexing'],
  ['memory'],
  ['engine'],
  ['eval'],
  ['interfaces', 'index.ts', 'testing'],
];

const pathOf = (name) => (name.endsWith('.ts') ? `^src/${name.replace('.', '\\.')}$` : `^src/${name}/`);
const notTest = '(\\.test\\.ts$|/test-support/)';

const forbidden = [
  {
    name: 'no-circular',
    severity: 'error',
    comment: 'Import cycles make the order of module evaluation matter; move the shared part down.',
    from: { path: '^src/', pathNot: notTest },
    to: { circular: true, pathNot: notTest },
  },
  {
    name: 'core-never-imports-interfaces',
    severity: 'error',
    comment: 'Core code never imports a door (CLI, MCP, HTTP).',
    from: { path: '^src/', pathNot: ['^src/interfaces/', '^src/index\\.ts$', notTest] },
    to: { path: '^src/interfaces/' },
  },
];
layers.forEach((level, index) => {
  const above = layers.slice(index + 1).flat();
  for (const name of level) {
    const sideways = level.filter((other) => other !== name);
    const targets = [...above, ...sideways];
    if (targets.length === 0) continue;
    forbidden.push({
      name: `layer-${name.replace('.ts', '')}`,
      severity: 'error',
      comment: `${name} may import only layers below it: ${layers.slice(0, index).flat().join(', ') || 'nothing'} (see docs/architecture.md).`,
      from: { path: pathOf(name), pathNot: notTest },
      to: { path: targets.map(pathOf) },
    });
  }
});

module.exports = {
  forbidden,
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['\\.test\\.ts$', '^src/.*/test-support/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
