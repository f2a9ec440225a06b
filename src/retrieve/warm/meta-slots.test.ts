import { describe, expect, it } from 'vitest';
import { metaTableOf } from '../../store/segment-format.js';
import { MetaSlots } from './meta-slots.js';

const table = metaTableOf([
  { path: 'src/a.ts', language: 'typescript' },
  { path: 'docs/b.md', language: 'markdown' },
]);

describe('MetaSlots', () => {
  it('answers restored slots from the table, replaced and added slots from their own objects', () => {
    const slots = new MetaSlots();
    slots.restore(table, Uint32Array.of(1, 0, 1));
    expect(slots.get(0)).toEqual({ path: 'docs/b.md', language: 'markdown' });
    expect(slots.get(1)?.path).toBe('src/a.ts');
    expect(slots.language(2)).toBe('markdown');
    // Past the restored slots: added ones.
    slots.set(3, { path: 'lib/c.py', language: 'python' });
    expect(slots.get(3)?.path).toBe('lib/c.py');
    expect(slots.language(3)).toBe('python');
    expect(slots.get(4)).toBeUndefined();
    // A restored slot cleared (a removed row), then reused for another row (a vector slot taken again).
    slots.clear(1);
    expect(slots.get(1)).toBeUndefined();
    expect(slots.language(1)).toBeUndefined();
    slots.set(1, { path: 'lib/d.go', language: 'go' });
    expect(slots.get(1)).toEqual({ path: 'lib/d.go', language: 'go' });
    expect(slots.language(1)).toBe('go');
    expect(slots.get(0)?.path).toBe('docs/b.md'); // its neighbours untouched
    slots.clear(3);
    expect(slots.get(3)).toBeUndefined();
    expect(() => slots.restore(table, Uint32Array.of(0))).toThrow(/empty/);
  });
});
