import { describe, expect, it } from 'vitest';
import { decodeFileAttributes, encodeFileAttributes } from './file-attributes.js';

describe('file attributes', () => {
  it('decode what was encoded, once per text, into a shared frozen value', () => {
    const text = encodeFileAttributes({ imports: ['./a.js', 'node:fs'], role: 'test' });
    const first = decodeFileAttributes(text);
    expect(first).toEqual({ imports: ['./a.js', 'node:fs'], role: 'test' });
    // A second decode of the same text (another string object) is the same value, which no caller can change.
    expect(decodeFileAttributes(`${text} `.trimEnd())).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.imports)).toBe(true);
    expect(() => (first.imports as string[]).push('x')).toThrow(TypeError);
    expect(decodeFileAttributes(text)).toEqual({ imports: ['./a.js', 'node:fs'], role: 'test' });
  });

  it('read damaged or foreign attributes as no imports and no role', () => {
    for (const text of [undefined, '', 'null', '{"imports": [1, "./b.js"], "role": "wizard"}', '{not json', '{"imports": "x"}']) {
      const decoded = decodeFileAttributes(text);
      expect(decoded.role).toBeUndefined();
      expect(decoded.imports).toEqual(text?.includes('./b.js') ? ['./b.js'] : []);
    }
  });
});
