import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LociError } from '../errors/index.js';
import { readFolderConfig, type FolderConfigFile } from './folder-config.js';
import { refusedFolderKeys } from './folder-rules.js';
import { loadConfig } from './load.js';

let root: string;
const write = (values: unknown) => writeFileSync(join(root, 'loci.config.json'), JSON.stringify(values));
const refusedPaths = (values: Record<string, unknown>) => refusedFolderKeys(values).map((key) => key.path);

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'loci-folder-config-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('a folder config (untrusted)', () => {
  it('may not pick an endpoint or a key variable: CONFIG_UNTRUSTED names each key and where it came from', () => {
    write({ embedder: 'openai-compatible:m', embedderOptions: { baseUrl: 'http://127.0.0.1:1/v1', apiKeyEnv: 'LOCI_GIT_TOKEN' }, llm: { baseUrl: 'http://127.0.0.1:2/v1' } });
    let error: unknown;
    try {
      loadConfig({ folder: root });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(LociError);
    const loci = error as LociError;
    expect(loci.code).toBe('CONFIG_UNTRUSTED');
    expect(loci.category).toBe('usage');
    expect((loci.details.refused as Array<{ path: string }>).map((key) => key.path)).toEqual(['embedder', 'embedderOptions.baseUrl', 'embedderOptions.apiKeyEnv', 'llm.baseUrl']);
    expect(loci.message).toContain(`(from ${join(root, 'loci.config.json')})`);
    expect(loci.hint).toContain('loci trust');
    expect(loci.hint).toContain('trustFolderConfig');
  });

  it('may not turn secret indexing on, but may tune the role priors', () => {
    expect(refusedPaths({ sources: { indexSecrets: true } })).toEqual(['sources.indexSecrets']);
    expect(refusedPaths({ search: { rolePenalties: { docs: 0 }, testSubjectShare: 0.2, definitionsFirst: false } })).toEqual([]);
  });

  it('may set local keys: ignore rules, chunking, ranking and memory weights', () => {
    write({
      embedder: 'none',
      sources: { exclude: ['gen/**'], maxFileBytes: 2_000_000 },
      chunking: { tokenBudget: 300 },
      search: { topK: 3, mode: 'lexical', ranker: 'none', weights: { lexical: 2 } },
      memory: { topK: 9, weights: { recency: 0.3 } },
    });
    const config = loadConfig({ folder: root });
    expect(config.embedder).toBe('none');
    expect(config.sources.exclude).toEqual(['gen/**']);
    expect(config.search.weights.lexical).toBe(2);
    expect(config.memory.weights.recency).toBe(0.3);
  });

  it('refuses file paths, remote embedders, the store, resources and widened ignore rules', () => {
    expect(refusedPaths({ embedder: 'static' })).toEqual([]);
    expect(refusedPaths({ embedder: 'static:/home/user/.ssh/id_rsa' })).toEqual(['embedder']);
    expect(refusedPaths({ embedder: 'transformers:Xenova/all-MiniLM-L6-v2' })).toEqual(['embedder']);
    expect(refusedPaths({ search: { ranker: '/etc/passwd' } })).toEqual(['search.ranker']);
    expect(refusedPaths({ search: { ranker: 'default' } })).toEqual([]);
    expect(refusedPaths({ store: '/tmp/elsewhere' })).toEqual(['store']);
    expect(refusedPaths({ git: { tokenHosts: ['evil.example'] } })).toEqual(['git.tokenHosts']);
    expect(refusedPaths({ indexing: { workerMemoryMb: 60000, worker: false } })).toEqual(['indexing.workerMemoryMb']);
    expect(refusedPaths({ sources: { respectGitignore: false } })).toEqual(['sources.respectGitignore']);
    expect(refusedPaths({ sources: { maxFileBytes: 10_000_001 } })).toEqual(['sources.maxFileBytes']);
    expect(refusedPaths({ memory: { dedupeSimilarity: 0.5 } })).toEqual(['memory.dedupeSimilarity']);
    expect(refusedPaths({ embedderOptions: { timeoutMs: 1000 } })).toEqual(['embedderOptions.timeoutMs']);
    expect(refusedPaths({ llm: { model: 'x' } })).toEqual(['llm.model']);
  });

  it('names a misspelled embedder or ranker as a typo, not as a key to trust the folder with', () => {
    for (const [values, meant] of [
      [{ embedder: 'sttaic' }, 'static'],
      [{ embedder: 'STATIC' }, 'static'],
      [{ search: { ranker: 'defualt' } }, 'default'],
      [{ embedder: 'static:loci-static-v2' }, 'static:loci-static-v1'],
    ] as const) {
      write(values);
      expect(() => loadConfig({ folder: root })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining(`did you mean "${meant}"?`) }));
    }
    // A remote provider, or a model file, is still a request for trust.
    for (const embedder of ['openai', 'static:./model.bin']) {
      write({ embedder });
      expect(() => loadConfig({ folder: root })).toThrow(expect.objectContaining({ code: 'CONFIG_UNTRUSTED' }));
    }
    // The shipped model by its full name is a local choice.
    expect(refusedPaths({ embedder: 'static:loci-static-v1' })).toEqual([]);
  });

  it('leaves unknown keys to the schema check, which lists the known ones', () => {
    write({ search: { topk: 3 } });
    expect(() => loadConfig({ folder: root })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('known keys: topK') }));
  });

  it('drops keys the user sets in the environment or flags instead of refusing them', () => {
    write({ embedder: 'openai:text-embedding-3-small', search: { topK: 4 } });
    const config = loadConfig({ folder: root, env: { LOCI_EMBEDDER: 'none' } });
    expect(config.embedder).toBe('none');
    expect(config.search.topK).toBe(4);
    expect(() => loadConfig({ folder: root, flags: { search: { topK: 5 } } })).toThrow(expect.objectContaining({ code: 'CONFIG_UNTRUSTED' }));
  });

  it('is used whole when trusted, and the trust check sees its real folder and content hash', () => {
    write({ embedderOptions: { baseUrl: 'http://127.0.0.1:1/v1' } });
    expect(loadConfig({ folder: root, trustFolderConfig: true }).embedderOptions.baseUrl).toBe('http://127.0.0.1:1/v1');
    const seen: FolderConfigFile[] = [];
    const trustOnce = (file: FolderConfigFile) => {
      seen.push(file);
      return seen.length === 1;
    };
    expect(loadConfig({ folder: root, trustFolderConfig: trustOnce }).embedderOptions.baseUrl).toBe('http://127.0.0.1:1/v1');
    expect(() => loadConfig({ folder: root, trustFolderConfig: trustOnce })).toThrow(expect.objectContaining({ code: 'CONFIG_UNTRUSTED' }));
    expect(seen[0]).toMatchObject({ path: join(root, 'loci.config.json'), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    write({ embedderOptions: { baseUrl: 'http://127.0.0.1:3/v1' } });
    expect(readFolderConfig(root)?.sha256).not.toBe(seen[0]?.sha256);
  });

  it('a config file the caller chose is trusted', () => {
    const own = join(root, 'mine.json');
    writeFileSync(own, JSON.stringify({ embedderOptions: { apiKeyEnv: 'MY_PROXY_KEY' } }));
    expect(loadConfig({ configFile: own, folder: root }).embedderOptions.apiKeyEnv).toBe('MY_PROXY_KEY');
  });

  it('is read only when it is a regular file inside the folder', () => {
    const outside = mkdtempSync(join(tmpdir(), 'loci-outside-'));
    try {
      writeFileSync(join(outside, 'secret.json'), '{"embedder":"none"}');
      symlinkSync(join(outside, 'secret.json'), join(root, 'loci.config.json'));
      expect(() => readFolderConfig(root)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('links outside the folder') }));
      rmSync(join(root, 'loci.config.json'));
      execFileSync('mkfifo', [join(root, 'loci.config.json')]);
      expect(() => readFolderConfig(root)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('not a regular file') }));
      rmSync(join(root, 'loci.config.json'));
      mkdirSync(join(root, 'conf'));
      writeFileSync(join(root, 'conf', 'real.json'), '{"search":{"topK":2}}');
      symlinkSync(join(root, 'conf', 'real.json'), join(root, 'loci.config.json'));
      expect(loadConfig({ folder: root }).search.topK).toBe(2);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
