import { describe, expect, it } from 'vitest';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from './json-limits.js';

describe('jsonDepthExceeds', () => {
  it('passes ordinary request bodies and refuses deep ones', () => {
    expect(jsonDepthExceeds('{"query":"x","paths":["a","b"],"metadata":{"a":{"b":[1,2]}}}')).toBe(false);
    expect(jsonDepthExceeds(`${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`)).toBe(false);
    expect(jsonDepthExceeds(`${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`)).toBe(true);
    expect(jsonDepthExceeds(`{"a":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_001)}`)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ text: `${'['.repeat(1000)} \\" ${'{'.repeat(1000)}"` });
    expect(jsonDepthExceeds(text)).toBe(false);
  });
});
