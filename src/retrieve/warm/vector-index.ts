import { LociError } from '../../errors/index.js';
import type { ScoredRow } from '../../store/spec.js';
import type { RowFilter } from '../../store/filter-match.js';
import { FolderSlots, folderOf } from './folder-slots.js';
import { TopK } from '../../store/top-k.js';
import { SegmentError, type VectorBase, type VectorSnapshot } from '../../store/segment-file.js';
import { MetaSlots } from './meta-slots.js';
import { kernelGatherDots } from './dot-kernel.js';
import { RowSlots } from './row-slots.js';
import { loopDot, scanInto, type ScanSource } from './exact-scan.js';

export interface VectorRowMeta {
  path: string;
  language: string;
}

export type { VectorSnapshot };

/** Rows read one by one from an unread restored matrix that are kept (rows beside a mapped graph are scored at every search). */
const ROWS_READ_KEPT = 8_192;

/**
 * Exact cosine search over vectors held in one contiguous Float32Array. Vectors are
 * normalised on insert, so similarity is a dot product. Removed slots are reused.
 */
export class FlatVectorIndex {
  private stored: Float32Array;
  /** A restored matrix not read yet: read (from the segment file) by the first access. */
  private pendingMatrix: (() => Float32Array) | undefined;
  /** Reads one restored row while the matrix is still pending (absent: read the matrix). */
  private pendingRow: ((slot: number) => Float32Array) | undefined;
  /** Reads the pending matrix a slice at a time (background prefetch), once started. */
  private pendingReader: VectorBase['matrixReader'];
  private reading: ReturnType<NonNullable<VectorBase['matrixReader']>> | undefined;

  /** Rows added while the restored matrix is unread (slot `baseSlots + r` is row r): a catch-up reads and copies nothing. */
  private tail = new Float32Array(0);
  /** Restored rows read from the file one by one, kept until the matrix is read (at most ROWS_READ_KEPT). */
  private readonly rowsRead = new Map<number, Float32Array>();
  /** Slots the restored matrix holds (those from here on are in `tail` while it is pending). */
  private baseSlots = 0;
  /** Writes into the matrix so far (exact-scan.ts keeps a copy until this moves). */
  private writes = 0;

  private get matrix(): Float32Array {
    const load = this.pendingMatrix;
    if (load) this.adopt(load());
    return this.stored;
  }

  private set matrix(matrix: Float32Array) {
    this.writes++;
    this.clearPending();
    this.stored = matrix;
  }

  /** The restored matrix, read: with the rows added meanwhile after it. */
  private adopt(loaded: Float32Array): void {
    const base = this.checked(loaded);
    this.writes++;
    const tailFloats = (this.slotCount - this.baseSlots) * this.dimensions;
    this.clearPending();
    if (tailFloats <= 0 && this.slotRowIds.length === this.baseSlots) {
      this.stored = base;
    } else {
      this.stored = new Float32Array(this.slotRowIds.length * this.dimensions);
      this.stored.set(base);
      this.stored.set(this.tail.subarray(0, tailFloats), base.length);
    }
    this.tail = new Float32Array(0);
  }

  private clearPending(): void {
    this.rowsRead.clear();
    this.pendingMatrix = undefined;
    this.pendingRow = undefined;
    this.pendingReader = undefined;
    this.reading = undefined;
  }

  private checked(loaded: Float32Array): Float32Array {
    if (loaded.length !== this.baseSlots * this.dimensions) throw new SegmentError('the saved vectors do not match their row table');
    return loaded;
  }

  /**
   * Reads up to `bytes` more of a restored matrix (a long-lived process reads it between
   * searches, so rescoring stops reading rows from the file one by one), or adopts the whole
   * matrix read and checked elsewhere (prefetch-worker.ts). False once the matrix is in memory
   * or there is none to read.
   */
  prefetchMatrix(bytes: number | Float32Array): boolean {
    if (!this.pendingMatrix || !this.pendingReader) return false;
    if (typeof bytes !== 'number') {
      this.adopt(bytes);
      return false;
    }
    this.reading ??= this.pendingReader();
    const loaded = this.reading.step(bytes);
    if (!loaded) return true;
    this.adopt(loaded);
    return false;
  }
  private slotRowIds: Float64Array;
  private readonly metas = new MetaSlots();
  private readonly slotOfRow = new RowSlots();
  private readonly freeSlots: number[] = [];
  /** Slots by the folder of their path (for memory, the namespace), so a prefix filter visits only its rows. */
  private readonly folders = new FolderSlots();
  /**
   * Contiguous copies of the vectors of folders a filtered search visited, so a namespace's
   * rows are scanned in order instead of strided across the whole matrix. Dropped when the
   * folder changes; bounded to the size of the matrix itself.
   */
  private readonly packed = new Map<string, { slots: Int32Array; matrix: Float32Array }>();
  private packedFloats = 0;
  private slotCount = 0;

  constructor(
    readonly dimensions: number,
    initialCapacity = 1024,
  ) {
    this.stored = new Float32Array(dimensions * initialCapacity);
    this.slotRowIds = new Float64Array(initialCapacity).fill(-1);
  }

  get size(): number {
    return this.slotOfRow.size;
  }

  /** The live vectors as flat arrays; `metaId` numbers each row's metadata (shared with the lexical snapshot). */
  snapshot(metaId: (meta: VectorRowMeta) => number): Omit<VectorSnapshot, 'matrix'> & { matrix: Float32Array } {
    const rows = this.slotOfRow.size;
    const metaIndex = new Uint32Array(rows);
    if (rows === this.slotCount) {
      // No free slot (a fresh build): the matrix as it is, a view valid until the next add.
      for (let slot = 0; slot < rows; slot++) metaIndex[slot] = metaId(this.metas.get(slot) as VectorRowMeta);
      return { rowIds: this.slotRowIds.slice(0, rows), matrix: this.matrix.subarray(0, rows * this.dimensions), metaIndex };
    }
    const rowIds = new Float64Array(rows);
    const matrix = new Float32Array(rows * this.dimensions);
    let row = 0;
    for (let slot = 0; slot < this.slotCount; slot++) {
      const rowId = this.slotRowIds[slot] as number;
      if (rowId < 0) continue;
      rowIds[row] = rowId;
      matrix.set(this.matrix.subarray(slot * this.dimensions, (slot + 1) * this.dimensions), row * this.dimensions);
      metaIndex[row] = metaId(this.metas.get(slot) as VectorRowMeta);
      row++;
    }
    return { rowIds, matrix, metaIndex };
  }

  /** Adopts a base into this empty index; its matrix is read when first needed (an exact scan, a vector handed to the graph). */
  restore(snapshot: VectorBase): void {
    if (this.slotCount !== 0) throw new Error('restore() needs an empty vector index');
    const rows = snapshot.rowIds.length;
    this.pendingMatrix = snapshot.matrix;
    this.pendingRow = snapshot.row;
    this.pendingReader = snapshot.matrixReader;
    this.slotRowIds = new Float64Array(rows);
    this.slotRowIds.set(snapshot.rowIds);
    this.metas.restore(snapshot.metas, snapshot.metaIndex);
    this.slotOfRow.restore(snapshot.rowIds);
    this.slotCount = rows;
    this.baseSlots = rows;
    this.folders.defer(() => {
      const out: Array<readonly [string, number]> = [];
      for (let slot = 0; slot < this.slotCount; slot++) if ((this.slotRowIds[slot] as number) >= 0) out.push([(this.metas.get(slot) as VectorRowMeta).path, slot]);
      return out;
    });
  }

  add(rowId: number, vector: Float32Array, meta: VectorRowMeta): void {
    if (vector.length !== this.dimensions) {
      throw new LociError('DIMENSION_MISMATCH', `Vector for row ${rowId} has ${vector.length} dimensions; the index has ${this.dimensions}.`);
    }
    if (this.slotOfRow.has(rowId)) this.remove(rowId);
    // While the restored matrix is unread, new rows go after it (a freed slot lies inside it).
    const pending = this.pendingMatrix !== undefined;
    const slot = (pending ? undefined : this.freeSlots.pop()) ?? this.slotCount++;
    let target: Float32Array;
    let offset: number;
    if (pending) {
      // A little room at a time: the matrix read later is allocated to this capacity.
      this.ensureRowCapacity(slot + 1, Math.max(64, this.baseSlots >>> 5));
      offset = (slot - this.baseSlots) * this.dimensions;
      if (this.tail.length < offset + this.dimensions) {
        const grown = new Float32Array(Math.max(offset + this.dimensions, 2 * this.tail.length, 64 * this.dimensions));
        grown.set(this.tail);
        this.tail = grown;
      }
      target = this.tail;
    } else {
      this.ensureCapacity(slot + 1);
      target = this.matrix;
      offset = slot * this.dimensions;
    }
    let norm = 0;
    for (let index = 0; index < vector.length; index++) norm += (vector[index] as number) ** 2;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let index = 0; index < vector.length; index++) target[offset + index] = (vector[index] as number) * scale;
    this.writes++; // the scan kernel's copy of the matrix is stale
    this.slotRowIds[slot] = rowId;
    this.metas.set(slot, meta);
    this.slotOfRow.set(rowId, slot);
    this.folders.add(meta.path, slot);
    this.unpack(folderOf(meta.path));
  }

  has(rowId: number): boolean {
    return this.slotOfRow.has(rowId);
  }

  /** Held rows absent from `keys` (ascending), and how many keys are not held (RowSlots.beside). */
  beside(keys: Int32Array, extraLimit: number, absentLimit: number): { extra: number[]; absent: number } | undefined {
    return this.slotOfRow.beside(keys, extraLimit, absentLimit);
  }

  /** Whether every one of the row ids is held (fastest when they ascend). */
  hasAll(rowIds: Int32Array): boolean {
    return this.slotOfRow.hasAll(rowIds);
  }

  rowIds(): IterableIterator<number> {
    return this.slotOfRow.keys();
  }

  /** The stored (normalised) vector of a row: a view, valid until the next add. */
  vectorOf(rowId: number): Float32Array | undefined {
    const slot = this.slotOfRow.get(rowId);
    return slot === undefined ? undefined : this.rowVector(slot);
  }

  /** A slot's vector: while the restored matrix is unread, from the tail or the file (each row read once). */
  private rowVector(slot: number): Float32Array {
    const dimensions = this.dimensions;
    if (this.pendingMatrix) {
      if (slot >= this.baseSlots) return this.tail.subarray((slot - this.baseSlots) * dimensions, (slot - this.baseSlots + 1) * dimensions);
      if (this.pendingRow) {
        let row = this.rowsRead.get(slot);
        if (!row) {
          row = this.pendingRow(slot);
          if (this.rowsRead.size < ROWS_READ_KEPT) this.rowsRead.set(slot, row);
        }
        return row;
      }
    }
    return this.matrix.subarray(slot * dimensions, (slot + 1) * dimensions);
  }

  /** A held row's path (undefined when the row is not held). */
  pathOf(rowId: number): string | undefined {
    const slot = this.slotOfRow.get(rowId);
    return slot === undefined ? undefined : this.metas.get(slot)?.path;
  }

  /**
   * Scores the given rows exactly (cosine against the unit query), in the given order, skipping
   * rows not held or not accepted: a graph's candidates. While a restored matrix is not loaded,
   * each row is read from the file alone (a new process rescoring a few candidates does not
   * read every vector). `into`: only the best go to `top` (rows beside a mapped graph), none
   * in `skip`, and nothing is returned.
   */
  scoreRows(rowIds: ArrayLike<number | bigint>, unit: Float32Array, accept: RowFilter | undefined, into?: { top: TopK; skip: ReadonlySet<number> }): ScoredRow[] {
    const dimensions = this.dimensions;
    const ids: number[] = [];
    const slots: number[] = [];
    for (let index = 0; index < rowIds.length; index++) {
      const rowId = Number(rowIds[index]);
      const slot = this.slotOfRow.get(rowId);
      if (slot === undefined || into?.skip.has(rowId)) continue;
      if (accept && !this.metas.accepts(slot, accept)) continue;
      ids.push(rowId);
      slots.push(slot);
    }
    // A read matrix: every row's dot product in one call of the SIMD kernel (the same sums as loopDot).
    const dots = this.pendingMatrix === undefined ? kernelGatherDots(this.stored, slots, slots.length, dimensions, unit) : undefined;
    const rows: ScoredRow[] = [];
    for (let index = 0; index < ids.length; index++) {
      const rowId = ids[index] as number;
      let score: number;
      if (dots) score = dots[index] as number;
      else {
        // The matrix itself when it is read (no view made per row); rowVector may read it meanwhile.
        const slot = slots[index] as number;
        const pending = this.pendingMatrix !== undefined;
        score = loopDot(pending ? this.rowVector(slot) : this.stored, pending ? 0 : slot * dimensions, unit, dimensions);
      }
      // No path yet: the caller keeps the best and asks for theirs (pathOf).
      if (!into) rows.push({ rowId, score, path: '' });
      else if (score >= into.top.floor) into.top.push(rowId, score);
    }
    return rows;
  }

  private packedBlock(folder: string): { slots: Int32Array; matrix: Float32Array } {
    let block = this.packed.get(folder);
    if (block) return block;
    const slots = Int32Array.from(this.folders.slotsOf(folder)).sort();
    const matrix = new Float32Array(slots.length * this.dimensions);
    slots.forEach((slot, row) => matrix.set(this.matrix.subarray(slot * this.dimensions, (slot + 1) * this.dimensions), row * this.dimensions));
    if (this.packedFloats + matrix.length > this.slotCount * this.dimensions) {
      this.packed.clear();
      this.packedFloats = 0;
    }
    block = { slots, matrix };
    this.packed.set(folder, block);
    this.packedFloats += matrix.length;
    return block;
  }

  private unpack(folder: string): void {
    const block = this.packed.get(folder);
    if (!block) return;
    this.packedFloats -= block.matrix.length;
    this.packed.delete(folder);
  }

  /** Slots whose path may lie under one of the prefixes (a superset; the filter still decides). */
  slotsUnder(prefixes: readonly string[]): number[] {
    return this.folders.under(prefixes).sort((a, b) => a - b);
  }

  /** The share of up to `samples` evenly spaced live rows that pass `accept` (a selectivity estimate). */
  acceptRate(accept: RowFilter, samples = 256): number {
    if (this.slotCount === 0) return 0;
    if (accept.prefixes) return this.slotsUnder(accept.prefixes).length / Math.max(1, this.size);
    const step = Math.max(1, Math.floor(this.slotCount / samples));
    let seen = 0;
    let passed = 0;
    for (let slot = 0; slot < this.slotCount; slot += step) {
      if (this.metas.language(slot) === undefined) continue;
      seen++;
      if (this.metas.accepts(slot, accept)) passed++;
    }
    return seen === 0 ? 0 : passed / seen;
  }

  remove(rowId: number): void {
    const slot = this.slotOfRow.get(rowId);
    if (slot === undefined) return;
    const meta = this.metas.get(slot); // first: a damaged segment block throws before anything changed
    this.slotOfRow.delete(rowId);
    this.slotRowIds[slot] = -1;
    if (meta) {
      this.folders.remove(meta.path, slot);
      this.unpack(folderOf(meta.path));
    }
    this.metas.clear(slot);
    this.freeSlots.push(slot);
  }

  search(query: Float32Array, limit: number, accept?: RowFilter): ScoredRow[] {
    if (query.length !== this.dimensions) {
      throw new LociError('DIMENSION_MISMATCH', `Query vector has ${query.length} dimensions; the index has ${this.dimensions}.`);
    }
    let norm = 0;
    for (let index = 0; index < query.length; index++) norm += (query[index] as number) ** 2;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    const top = new TopK(limit);
    const matrix = this.matrix;
    if (accept?.prefixes) {
      for (const folder of this.folders.foldersUnder(accept.prefixes)) {
        const block = this.packedBlock(folder);
        scanInto({ ...this.scanned(block.matrix, block.slots.length), slots: block.slots }, query, scale, top, accept);
      }
    } else {
      scanInto(this.scanned(matrix, this.slotCount), query, scale, top, accept);
    }
    return top.sorted().map(({ id, score }) => ({ rowId: id, score, path: (this.metas.get(this.slotOfRow.get(id) as number) as VectorRowMeta).path }));
  }

  private scanned(vectors: Float32Array, count: number): ScanSource {
    return { vectors, slots: undefined, count, dimensions: this.dimensions, rowIds: this.slotRowIds, metas: this.metas, version: this.writes };
  }

  private ensureCapacity(slots: number): void {
    const capacity = this.slotRowIds.length;
    if (slots <= capacity) return;
    const next = Math.max(slots, capacity * 2);
    const matrix = new Float32Array(next * this.dimensions);
    matrix.set(this.matrix);
    this.matrix = matrix;
    this.ensureRowCapacity(next);
  }

  /** Room in the row table for `slots`, growing by `step` (default: doubling). */
  private ensureRowCapacity(slots: number, step?: number): void {
    const capacity = this.slotRowIds.length;
    if (slots <= capacity) return;
    const rowIds = new Float64Array(Math.max(slots, capacity + (step ?? capacity))).fill(-1);
    rowIds.set(this.slotRowIds);
    this.slotRowIds = rowIds;
  }
}
