import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withPathsFrom } from './file-paths.js';
import { loadConfig } from './load.js';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'loci-config-paths-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('files a config file names', () => {
  it('are read from beside the config file, not from the folder the command runs in', () => {
    const configFile = join(home, 'conf', 'loci.json');
    mkdirSync(join(home, 'conf'));
    writeFileSync(configFile, JSON.stringify({ embedder: 'static:./models/mine.bin', search: { ranker: 'rankers/r.json' } }));
    const config = loadConfig({ configFile });
    expect(config.embedder).toBe(`static:${join(home, 'conf', 'models', 'mine.bin')}`);
    expect(config.search.ranker).toBe(join(home, 'conf', 'rankers', 'r.json'));
  });

  it('keep absolute paths, names and the shell’s own relative paths (flags, LOCI_* variables)', () => {
    expect(withPathsFrom({ embedder: 'static:/opt/m.bin', search: { ranker: '/opt/r.json', topK: 3 } }, home)).toEqual({ embedder: 'static:/opt/m.bin', search: { ranker: '/opt/r.json', topK: 3 } });
    expect(withPathsFrom({ embedder: 'static', search: { ranker: 'default' } }, home)).toEqual({ embedder: 'static', search: { ranker: 'default' } });
    expect(withPathsFrom({ embedder: 'static:loci-static-v1' }, home)).toEqual({ embedder: 'static:loci-static-v1' });
    expect(withPathsFrom({ embedder: 'openai:text-embedding-3-small' }, home)).toEqual({ embedder: 'openai:text-embedding-3-small' });
    const configFile = join(home, 'loci.json');
    writeFileSync(configFile, JSON.stringify({ embedder: 'static:./a.bin' }));
    const config = loadConfig({ configFile, flags: { embedder: 'static:./b.bin' }, env: { LOCI_SEARCH_RANKER: './r.json' } });
    expect(config.embedder).toBe('static:./b.bin');
    expect(config.search.ranker).toBe('./r.json');
  });

  it('in a folder’s own config (once trusted) are read from that folder', () => {
    writeFileSync(join(home, 'loci.config.json'), JSON.stringify({ search: { ranker: './ranker.json' } }));
    expect(loadConfig({ folder: home, trustFolderConfig: true }).search.ranker).toBe(join(home, 'ranker.json'));
  });
});
