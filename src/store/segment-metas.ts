import type { MetaTable, PackedMetas, SegmentRowMeta } from './segment-format.js';

/** Row metadata in memory packed as a segment file holds it (languages numbered in order of first use). */
export function packMetas(metas: readonly SegmentRowMeta[]): PackedMetas {
  const joined = metas.map((meta) => meta.path).join('');
  let paths = Buffer.from(joined, 'utf8');
  // Every path ASCII (nearly always): a byte per character. Else each path is encoded alone (two
  // paths' halves of a surrogate pair must not join into one character).
  const ascii = paths.length === joined.length;
  if (!ascii) {
    paths = Buffer.allocUnsafe(metas.reduce((bytes, meta) => bytes + Buffer.byteLength(meta.path, 'utf8'), 0));
    metas.reduce((at, meta) => at + paths.write(meta.path, at, 'utf8'), 0);
  }
  const ends = new Uint32Array(metas.length);
  const languageIds = new Uint32Array(metas.length);
  const languages: string[] = [];
  const languageIndex = new Map<string, number>();
  let end = 0;
  metas.forEach((meta, index) => {
    let language = languageIndex.get(meta.language);
    if (language === undefined) {
      language = languages.push(meta.language) - 1;
      languageIndex.set(meta.language, language);
    }
    languageIds[index] = language;
    end += ascii ? meta.path.length : Buffer.byteLength(meta.path, 'utf8');
    ends[index] = end;
  });
  return { paths, ends, languageIds, languages };
}

/** Entry `index`'s path as UTF-8 bytes: a view of the table's checked block when it has one, else encoded. */
export function metaPathBytes(table: MetaTable, index: number): Uint8Array {
  return table.pathBytes?.(index) ?? Buffer.from(table.get(index).path, 'utf8');
}

/**
 * Numbers row metadata (a path's bytes and a language) in order of first use, one number per
 * distinct pair, packed as a segment file holds it: no object or string per entry. Merging a
 * store of 1M documents into one segment numbered 1M paths; a Map of their strings and an
 * object each took ~0.25 GB more at the peak of a 1M build (bench/build-memory.mjs).
 * `maxEntries` and `maxBytes` bound what is added (the sum of the tables merged).
 */
export class MetaPacker {
  private readonly paths: Buffer;
  private readonly ends: Uint32Array;
  private readonly languageIds: Uint32Array;
  private readonly languages: string[] = [];
  private readonly languageIndex = new Map<string, number>();
  /** Open addressing: an entry's number + 1 at its hash's slot or the next free one (0: free). */
  private readonly slots: Int32Array;
  private count = 0;
  private bytes = 0;

  constructor(maxEntries: number, maxBytes: number) {
    this.paths = Buffer.allocUnsafe(maxBytes);
    this.ends = new Uint32Array(maxEntries);
    this.languageIds = new Uint32Array(maxEntries);
    let size = 16;
    while (size < 2 * maxEntries) size *= 2;
    this.slots = new Int32Array(size);
  }

  /** The number of the pair `path` (UTF-8) and `language`: the one it was given when first added. */
  idOf(path: Uint8Array, language: string): number {
    let languageId = this.languageIndex.get(language);
    if (languageId === undefined) {
      languageId = this.languages.push(language) - 1;
      this.languageIndex.set(language, languageId);
    }
    // FNV-1a over the bytes, then the language.
    let hash = 0x811c9dc5;
    for (let at = 0; at < path.length; at++) hash = Math.imul(hash ^ (path[at] as number), 0x01000193);
    hash = Math.imul(hash ^ languageId, 0x01000193);
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = this.slots[slot] as number;
      if (held === 0) {
        if (this.count >= this.ends.length || this.bytes + path.length > this.paths.length) throw new Error('MetaPacker: more metadata than it was sized for');
        const id = this.count++;
        this.paths.set(path, this.bytes);
        this.bytes += path.length;
        this.ends[id] = this.bytes;
        this.languageIds[id] = languageId;
        this.slots[slot] = id + 1;
        return id;
      }
      if (this.matches(held - 1, path, languageId)) return held - 1;
    }
  }

  /** What was numbered, as a segment file packs it (views of this packer's arrays). */
  packed(): PackedMetas {
    return { paths: this.paths.subarray(0, this.bytes), ends: this.ends.subarray(0, this.count), languageIds: this.languageIds.subarray(0, this.count), languages: this.languages };
  }

  private matches(id: number, path: Uint8Array, languageId: number): boolean {
    if (this.languageIds[id] !== languageId) return false;
    const start = id > 0 ? (this.ends[id - 1] as number) : 0;
    const end = this.ends[id] as number;
    return end - start === path.length && this.paths.compare(path, 0, path.length, start, end) === 0;
  }
}
