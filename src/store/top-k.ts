/**
 * Keeps the k best (id, score) pairs seen (higher score, then smaller id: the result does
 * not depend on the order candidates arrive in) in a binary min-heap, so a scan of
 * n candidates costs O(n log k) and allocates nothing per candidate.
 */
export class TopK {
  private readonly ids: Float64Array;
  private readonly scores: Float64Array;
  private count = 0;

  constructor(readonly k: number) {
    this.ids = new Float64Array(Math.max(1, k));
    this.scores = new Float64Array(Math.max(1, k));
  }

  /** The score a candidate must beat to enter (−∞ while not full). */
  get floor(): number {
    return this.count < this.k ? -Infinity : (this.scores[0] as number);
  }

  push(id: number, score: number): void {
    if (this.k <= 0) return;
    if (this.count < this.k) {
      let index = this.count++;
      while (index > 0) {
        const parent = (index - 1) >> 1;
        if (!this.worse(score, id, this.scores[parent] as number, this.ids[parent] as number)) break;
        this.ids[index] = this.ids[parent] as number;
        this.scores[index] = this.scores[parent] as number;
        index = parent;
      }
      this.ids[index] = id;
      this.scores[index] = score;
      return;
    }
    if (!this.worse(this.scores[0] as number, this.ids[0] as number, score, id)) return;
    let index = 0;
    const size = this.count;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= size) break;
      const right = left + 1;
      const child = right < size && this.worse(this.scores[right] as number, this.ids[right] as number, this.scores[left] as number, this.ids[left] as number) ? right : left;
      if (!this.worse(this.scores[child] as number, this.ids[child] as number, score, id)) break;
      this.ids[index] = this.ids[child] as number;
      this.scores[index] = this.scores[child] as number;
      index = child;
    }
    this.ids[index] = id;
    this.scores[index] = score;
  }

  /** Whether (a) ranks below (b): a lower score, or the same score and a larger id. */
  private worse(aScore: number, aId: number, bScore: number, bId: number): boolean {
    return aScore < bScore || (aScore === bScore && aId > bId);
  }

  /** Best first; ties broken by smaller id so results are deterministic. */
  sorted(): Array<{ id: number; score: number }> {
    const out: Array<{ id: number; score: number }> = [];
    for (let index = 0; index < this.count; index++) out.push({ id: this.ids[index] as number, score: this.scores[index] as number });
    return out.sort((a, b) => b.score - a.score || a.id - b.id);
  }
}
