import { describe, expect, it } from 'vitest';
import { loadConfig } from './load.js';
import { describeUnknownVariable, unknownVariables } from './variables.js';

describe('unknownVariables', () => {
  it('names LOCI_* variables loci does not read, with the one each likely misspells', () => {
    const env = {
      LOCI_SEARCH_TOPK: '3',
      LOCI_SEARCH_TOP_K: '4',
      LOCI_LLM_API_KEY: 'secret',
      LOCI_TOKEN: 't',
      LOCI_CACH_DIR: '/tmp/x',
      LOCI_WHATEVER: '1',
      PATH: '/usr/bin',
      SEARCH_TOPK: '1',
    };
    expect(unknownVariables(env)).toEqual([{ name: 'LOCI_CACH_DIR', meant: 'LOCI_CACHE_DIR' }, { name: 'LOCI_SEARCH_TOPK', meant: 'LOCI_SEARCH_TOP_K' }, { name: 'LOCI_WHATEVER' }]);
    expect(unknownVariables({ LOCI_LLM_KEY: 'k' })).toEqual([{ name: 'LOCI_LLM_KEY', meant: 'LOCI_LLM_API_KEY' }]);
    expect(describeUnknownVariable({ name: 'LOCI_SEARCH_TOPK', meant: 'LOCI_SEARCH_TOP_K' })).toBe('warning: LOCI_SEARCH_TOPK is not a loci variable and is ignored; did you mean LOCI_SEARCH_TOP_K?');
  });

  it('knows every config key and the API-key variable the config names', () => {
    const env = { LOCI_SOURCES_MAX_FILE_BYTES: '100', LOCI_INDEXING_WORKER: 'false', LOCI_MY_EMBED_KEY: 'k' };
    const config = loadConfig({ env: { LOCI_EMBEDDER_OPTIONS_API_KEY_ENV: 'LOCI_MY_EMBED_KEY' } });
    expect(unknownVariables(env, config)).toEqual([]);
    expect(unknownVariables(env).map(({ name }) => name)).toEqual(['LOCI_MY_EMBED_KEY']);
    expect(unknownVariables({})).toEqual([]);
  });
});
