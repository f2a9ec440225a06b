import { describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import { scanVectors, type VectorScanStatements } from './vector-scan.js';

/** A blob that starts at an odd offset of its buffer, as SQLite may hand one back. */
function unalignedBlob(values: number[]): Buffer {
  const blob = Buffer.alloc(values.length * 4 + 1).subarray(1);
  values.forEach((value, index) => blob.writeFloatLE(value, index * 4));
  return blob;
}

const rows: Array<[number, Buffer, string, string]> = [
  [1, unalignedBlob([1, 0, 0]), 'a.py', 'python'],
  [2, Buffer.from(new Float32Array([0, 1, 0]).buffer), 'b.md', 'markdown'],
  [3, unalignedBlob([0.9, 0.1, 0]), 'c.py', 'python'],
  [4, Buffer.from(new Float32Array([1, 0]).buffer), 'd.py', 'python'], // another model's width: skipped
];
const statement = (data: unknown[][]) =>
  ({ iterate: () => data[Symbol.iterator](), all: (ids: string) => data.filter((row) => (JSON.parse(ids) as number[]).includes(row[0] as number)) }) as unknown as Database.Statement;
const statements: VectorScanStatements = {
  vectorIds: statement(rows.map(([id, blob]) => [id, blob])),
  vectorRows: statement(rows),
  pathsByIds: statement(rows.map(([id, , path]) => [id, path])),
};

describe('exact vector scan over stored blobs', () => {
  it("reads aligned and unaligned blobs alike, skips other widths, and fetches the winners' paths", () => {
    const top = scanVectors(statements, { embedderId: 'm', vector: new Float32Array([1, 0, 0]), limit: 2 });
    expect(top.map((row) => [row.rowId, row.path])).toEqual([
      [1, 'a.py'],
      [3, 'c.py'],
    ]);
    expect(top[0]?.score).toBeCloseTo(1);
    expect(top[1]?.score).toBeCloseTo(0.9 / Math.hypot(0.9, 0.1));
    const markdown = scanVectors(statements, { embedderId: 'm', vector: new Float32Array([1, 0, 0]), limit: 2, filter: { languages: ['markdown'] } });
    expect(markdown.map((row) => [row.rowId, row.path])).toEqual([[2, 'b.md']]);
  });
});
