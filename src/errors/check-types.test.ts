import { describe, expect, it } from 'vitest';
import { checkKeys, LIBRARY_OPTION_KEYS } from './check-types.js';

describe('checkKeys', () => {
  it('names the key a misspelling meant: case, a letter or two for longer keys, one for short ones, swapped letters', () => {
    const keys = ['topK', 'languages', 'pathPrefixes', 'mode'];
    expect(() => checkKeys({ TOPK: 1 }, keys, 'search options')).toThrow('did you mean "topK"?');
    expect(() => checkKeys({ top_k: 1 }, keys, 'search options')).toThrow('did you mean "topK"?');
    expect(() => checkKeys({ 'path-prefixes': 1 }, keys, 'search options')).toThrow('did you mean "pathPrefixes"?');
    expect(() => checkKeys({ lanugages: [] }, keys, 'search options')).toThrow('did you mean "languages"?');
    expect(() => checkKeys({ pathPrefix: [] }, keys, 'search options')).toThrow('did you mean "pathPrefixes"?');
    expect(() => checkKeys({ mods: 'x' }, keys, 'search options')).toThrow('did you mean "mode"?');
    expect(() => checkKeys({ mdoe: 'x' }, keys, 'search options')).toThrow('did you mean "mode"?'); // two edits, but the same letters swapped
    expect(() => checkKeys({ moed: 'x', dome: 'x' }, ['model', 'mode'], 'search options')).toThrow('did you mean "mode"?');
    expect(() => checkKeys({ mod: 'x' }, keys, 'search options')).toThrow('did you mean "mode"?'); // a key's start
    expect(() => checkKeys({ ttl: 1 }, ['namespace', 'text', 'ttlMs'], 'memory input', { shared: false })).toThrow('did you mean "ttlMs"?');
    expect(() => checkKeys({ mo: 'x', tpk: 1 }, keys, 'search options')).not.toThrow(); // too short to guess, or no key's start
    expect(() => checkKeys({ requestId: 1, trace: true }, keys, 'search options')).not.toThrow();
  });

  it("never calls another call's key a misspelling (unless the object is nobody else's), and refuses every unknown key when strict", () => {
    expect(() => checkKeys({ namespaces: ['a'] }, ['namespace', 'text'], 'memory input', { shared: false })).toThrow('did you mean "namespace"?');
    expect(LIBRARY_OPTION_KEYS.has('topN')).toBe(true);
    expect(() => checkKeys({ topN: 2, maxTokens: 100 }, ['topK', 'threshold'], 'search options')).not.toThrow();
    expect(() => checkKeys({ cache: 1 }, ['root', 'store'], 'createLoci options', { strict: true })).toThrow('Unknown key "cache" in the createLoci options.');
    expect(() => checkKeys(undefined, ['root'], 'x', { strict: true })).not.toThrow();
  });

  it("lists every key of the library's option checks", async () => {
    const schemas = {
      search: (await import('../retrieve/check-search-options.js')).searchOptions,
      context: (await import('../context/check-context-options.js')).contextOptions,
      recall: (await import('../memory/check-memory-options.js')).recallOptions,
      memoryFilter: (await import('../memory/check-memory-options.js')).listFilter,
      run: (await import('../engine/lifecycle.js')).runOptions,
      watch: (await import('../engine/watch.js')).watchOptionTypes,
    };
    const families: Record<string, readonly string[]> = Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, Object.keys(schema.shape)]));
    families.createLoci = (await import('../engine/lifecycle.js')).CREATE_KEYS;
    for (const [family, keys] of Object.entries(families)) {
      expect(keys.length, family).toBeGreaterThan(1);
      for (const key of keys) expect(LIBRARY_OPTION_KEYS.has(key), `${family}.${key}`).toBe(true);
    }
  });
});
