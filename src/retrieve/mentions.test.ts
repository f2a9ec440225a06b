import { describe, expect, it } from 'vitest';
import { extractMentions } from './mentions.js';

describe('extractMentions', () => {
  it('finds identifiers, paths and backticked names', () => {
    expect(extractMentions('why does parseConfig fail in src/config/load.ts?')).toEqual({ symbols: ['parseConfig'], paths: ['src/config/load.ts'] });
    expect(extractMentions('where is `get_user` and UserService.find used, see sqlite-store.ts')).toEqual({
      symbols: ['get_user', 'UserService.find'],
      paths: ['sqlite-store.ts'],
    });
  });

  it('ignores plain prose, abbreviations and versions', () => {
    expect(extractMentions('how do I index a folder, e.g. a repo with node 20.1?')).toEqual({ symbols: [], paths: [] });
    expect(extractMentions('The Quick brown fox')).toEqual({ symbols: [], paths: [] });
  });
});
