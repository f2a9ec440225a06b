import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoci } from '../../src/index.js';

/**
 * A Python library about shell completion (pallets/click's shape): classes for bash, zsh,
 * fish and PowerShell, and one shell script of its own. "bash" in a question about it names
 * the subject, not the code wanted.
 */
const shells = ['Bash', 'Zsh', 'Fish', 'PowerShell'];
const library: Record<string, string> = {
  'src/completion.py': shells
    .map((shell) =>
      [
        `class ${shell}Complete(ShellComplete):`,
        `    """Shell completion for ${shell === 'PowerShell' ? 'the PowerShell shell' : shell.toLowerCase()}."""`,
        `    name = "${shell.toLowerCase()}"`,
        '    def format_completion(self, item):',
        '        return f"{item.type},{item.value}"',
        '',
      ].join('\n'),
    )
    .join('\n'),
  'src/shell.py': ['class ShellComplete:', '    """Base class for shell completion: reads the words and returns completions."""', '    def complete(self):', '        return []', ''].join('\n'),
  'scripts/on-create.sh': '#!/usr/bin/env bash\nset -e\npip install -e .\n',
};
for (let index = 0; index < 40; index++) library[`src/module_${index}.py`] = `def helper_${index}(value):\n    """Parses option ${index} of a command."""\n    return value\n`;

let workspace: string;

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'loci-language-hints-'));
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

async function index(name: string, files: Record<string, string>) {
  const root = join(workspace, name);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  const loci = createLoci({ root });
  await loci.index();
  return loci;
}

describe('language names in queries', () => {
  it('a language that is a sliver of the index stays a search term: "… for bash" finds BashComplete', async () => {
    const loci = await index('library', library);
    try {
      const response = await loci.search('how does shell completion work for bash', { topK: 5, explain: true });
      expect(response.results[0]?.symbol).toBe('BashComplete');
      // Not a hint: no result is lifted for being bash code.
      for (const result of response.results) expect(result.ranking?.features.languageMatch?.value ?? 0).toBe(0);
    } finally {
      await loci.close();
    }
  });

  it('a language with a real share of the index is a hint: its code is preferred over chunks naming it', async () => {
    const scripts: Record<string, string> = { 'docs/notes.py': 'def deploy_notes():\n    """Deploy with the bash script in scripts/: it builds, then uploads."""\n    return None\n' };
    for (let index = 0; index < 6; index++) scripts[`scripts/deploy_${index}.sh`] = `#!/bin/sh\n# Deploy step ${index}: build and upload\nmake build && upload ${index}\n`;
    for (let index = 0; index < 40; index++) scripts[`src/module_${index}.py`] = `def helper_${index}(value):\n    return value\n`;
    const loci = await index('scripts', scripts);
    try {
      const response = await loci.search('deploy build upload bash', { topK: 5, explain: true });
      expect(response.results[0]?.language).toBe('bash');
      expect(response.results[0]?.ranking?.features.languageMatch?.value).toBe(1);
    } finally {
      await loci.close();
    }
  });
});
