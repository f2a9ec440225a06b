import { describe, expect, it } from 'vitest';
import { RowSlots, sortedIndexOf } from './row-slots.js';

/** A seeded generator, so a failure replays. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** A table restored from up to `most` distinct sorted row ids in 1…`range`. */
function restoredAtRandom(next: () => number, most: number, range: number): { held: Float64Array; slots: RowSlots } {
  const held = Float64Array.from(new Set(Array.from({ length: 1 + Math.floor(next() * most) }, () => 1 + Math.floor(next() * range)))).sort();
  const slots = new RowSlots();
  slots.restore(held);
  return { held, slots };
}

describe('RowSlots', () => {
  for (const [name, rowIds] of [
    ['sorted row ids (a fresh segment)', Float64Array.from({ length: 500 }, (_, index) => 3 + index * 2)],
    ['unsorted row ids (slots reused before the save)', Float64Array.from({ length: 500 }, (_, index) => ((index * 7919) % 997) + 1)],
    ['no rows', new Float64Array(0)],
  ] as const) {
    it(`answers as a Map would under random changes: ${name}`, () => {
      const slots = new RowSlots();
      slots.restore(rowIds);
      const expected = new Map<number, number>();
      rowIds.forEach((rowId, slot) => expected.set(rowId, slot));
      const next = random(rowIds.length + 11);
      for (let step = 0; step < 2_000; step++) {
        const rowId = Math.floor(next() * 1_200);
        const action = next();
        if (action < 0.1) {
          slots.set(rowId, step);
          expected.set(rowId, step);
        } else if (action < 0.2) {
          expect(slots.delete(rowId)).toBe(expected.delete(rowId));
        } else {
          expect(slots.get(rowId)).toBe(expected.get(rowId));
          expect(slots.has(rowId)).toBe(expected.has(rowId));
        }
        expect(slots.size).toBe(expected.size);
      }
      expect(new Set(slots.keys())).toEqual(new Set(expected.keys()));
    });
  }

  it('answers lookups from the restored ids, and refuses a second restore', () => {
    const slots = new RowSlots();
    slots.restore(Float64Array.of(2, 5, 9));
    expect([slots.get(2), slots.get(5), slots.get(9), slots.get(4), slots.get(10)]).toEqual([0, 1, 2, undefined, undefined]);
    expect([...slots.keys()]).toEqual([2, 5, 9]);
    expect(() => slots.restore(Float64Array.of(1))).toThrow(/empty/);
  });

  it('rows added and deleted after a restore sit beside the restored ids: no map of every row is built', () => {
    const restored = Float64Array.from({ length: 1_000 }, (_, index) => 10 + index);
    const slots = new RowSlots();
    slots.restore(restored);
    slots.set(5_000, 1_000);
    slots.set(5_001, 1_001);
    expect(slots.delete(12)).toBe(true);
    expect(slots.delete(12)).toBe(false);
    expect(slots.delete(5_000)).toBe(true);
    expect([slots.get(11), slots.get(12), slots.get(5_000), slots.get(5_001), slots.size]).toEqual([1, undefined, undefined, 1_001, 1_000]);
    expect([...slots.keys()].slice(0, 3)).toEqual([10, 11, 13]);
    expect([...slots.keys()].at(-1)).toBe(5_001);
    expect(slots.hasAll(Int32Array.of(10, 11, 13, 5_001))).toBe(true);
    expect(slots.hasAll(Int32Array.of(10, 12))).toBe(false);
    // Still answered from the restored ids (the map holds only the one added row).
    const inside = slots as unknown as { restored: Float64Array | undefined; map: Map<number, number> };
    expect(inside.restored).toBe(restored);
    expect(inside.map.size).toBe(1);
  });

  it('a restored row set to its own slot (as a compaction does) is held once; to another slot, moved', () => {
    const slots = new RowSlots();
    slots.restore(Float64Array.of(2, 5, 9));
    slots.set(11, 3);
    slots.set(5, 1);
    expect([slots.size, [...slots.keys()]]).toEqual([4, [2, 5, 9, 11]]);
    expect(slots.delete(5)).toBe(true);
    expect([slots.has(5), slots.size]).toEqual([false, 3]);
    slots.set(9, 0);
    expect([slots.get(9), slots.get(2), slots.size]).toEqual([0, 0, 3]);
  });

  it('beside() names the held rows a sorted key list lacks and counts its keys not held, or gives up past the limit', () => {
    const next = random(17);
    for (let round = 0; round < 200; round++) {
      const { slots } = restoredAtRandom(next, 80, 150);
      for (let change = 0; change < Math.floor(next() * 10); change++) {
        const rowId = 1 + Math.floor(next() * 200);
        if (next() < 0.5) slots.delete(rowId);
        else if (!slots.has(rowId)) slots.set(rowId, 1_000 + change);
      }
      const keys = Int32Array.from(new Set(Array.from({ length: Math.floor(next() * 80) }, () => 1 + Math.floor(next() * 200)))).sort();
      const live = [...slots.keys()];
      const keySet = new Set(keys);
      const extra = live.filter((rowId) => !keySet.has(rowId));
      const absent = [...keys].filter((rowId) => !slots.has(rowId)).length;
      const extraLimit = Math.floor(next() * 40);
      const absentLimit = Math.floor(next() * 40);
      const got = slots.beside(keys, extraLimit, absentLimit);
      if (extra.length > extraLimit || absent > absentLimit) expect(got).toBeUndefined();
      else {
        expect(got?.absent).toBe(absent);
        expect(new Set(got?.extra)).toEqual(new Set(extra));
      }
    }
    const slots = new RowSlots();
    slots.restore(Float64Array.of(1, 2, 3));
    expect(slots.beside(Int32Array.of(3, 1), 10, 10)).toBeUndefined(); // keys that do not ascend
  });

  it('finds an id among sorted ids as indexOf does: dense, gapped, clustered, at the ends, absent', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const shapes: Array<(count: number) => number[]> = [
      (count) => Array.from({ length: count }, (_, index) => index + 1),
      (count) => {
        let id = Math.floor(random() * 5);
        return Array.from({ length: count }, () => (id += 1 + (random() < 0.3 ? Math.floor(random() * 200) : 0)));
      },
      // Most ids in a run, a few far away (a store whose early rows were deleted).
      (count) => Array.from({ length: count }, (_, index) => (index < count - 3 ? index + 1 : 1_000_000 + index * 7919)),
    ];
    let checked = 0;
    for (const shape of shapes) {
      for (const count of [0, 1, 2, 3, 10, 97, 1000]) {
        const ids = shape(count);
        for (const values of [Float64Array.from(ids), Int32Array.from(ids)]) {
          const probes = new Set([...ids, ...ids.map((id) => id + 1), ...ids.map((id) => id - 1), -1, 0, 2.5, Number.NaN, 2_000_000_000]);
          for (const probe of probes) {
            expect(sortedIndexOf(values, probe)).toBe(ids.indexOf(probe));
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(8_000);
  });

  it('hasAll answers as has() for every id, ascending or not, restored or changed', () => {
    const next = random(5);
    for (let round = 0; round < 200; round++) {
      const { held, slots } = restoredAtRandom(next, 60, 100);
      if (round % 4 === 3) slots.set(1_000, held.length); // the map path
      const asked = Int32Array.from({ length: Math.floor(next() * 30) }, () => 1 + Math.floor(next() * 100));
      if (round % 2 === 0) asked.sort();
      const expected = [...asked].every((rowId) => slots.has(rowId));
      expect(slots.hasAll(asked)).toBe(expected);
      expect(slots.hasAll(Int32Array.from(held))).toBe(true); // every held id, ascending: the merged pass
    }
  });
});
