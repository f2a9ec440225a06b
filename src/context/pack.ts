/** A piece of context: a chunk, a merged run of chunks, or a whole file. */
export interface ContextItem {
  path: string;
  startLine: number;
  endLine: number;
  text: string;
  score: number;
  language?: string;
  /** Why it is here: retrieved, included explicitly (@path), or part of an /all or small-project send. */
  origin?: 'retrieved' | 'include' | 'all' | 'small-project';
  /** Explicit includes are packed before anything else, regardless of score. */
  pinned?: boolean;
}

export interface PackOptions {
  /** Never exceeded: an item that would cross it is skipped and the next one tried. */
  hardLimit: number;
  /** Packing stops once this much is used (default: the hard limit). */
  softLimit?: number;
  /** Size of one rendered item in the budget's unit. */
  cost: (item: ContextItem) => number;
}

export interface PackResult {
  /** Best file first; within a file, in line order. */
  items: ContextItem[];
  used: number;
  /** Items left out because they did not fit. */
  skipped: ContextItem[];
  /** The same items with why each was left out and, when measured, its size. */
  dropped: DroppedItem[];
}

/** An item the budget left out: `soft-budget` (packing had stopped), `hard-budget` (it would cross the limit), `refit` (removed so the finished prompt fits). */
export interface DroppedItem {
  item: ContextItem;
  reason: 'soft-budget' | 'hard-budget' | 'refit';
  cost?: number;
}

/**
 * Merges overlapping or touching chunks of a file into one item (keeping the best score),
 * so no line is sent twice.
 */
export function mergeOverlaps(items: readonly ContextItem[]): ContextItem[] {
  const byPath = new Map<string, ContextItem[]>();
  for (const item of items) {
    const list = byPath.get(item.path) ?? [];
    list.push(item);
    byPath.set(item.path, list);
  }
  const merged: ContextItem[] = [];
  for (const list of byPath.values()) {
    list.sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine);
    let current: ContextItem | undefined;
    for (const item of list) {
      if (current && item.startLine <= current.endLine + 1) {
        if (item.endLine > current.endLine) {
          const lines = item.text.split('\n');
          const extra = lines.slice(current.endLine - item.startLine + 1);
          current = { ...current, text: `${current.text}\n${extra.join('\n')}`, endLine: item.endLine };
        }
        current = { ...current, score: Math.max(current.score, item.score), pinned: Boolean(current.pinned || item.pinned) };
        continue;
      }
      if (current) merged.push(current);
      current = { ...item };
    }
    if (current) merged.push(current);
  }
  return merged;
}

/**
 * Greedy best-first packing: pinned items first, then by score; an item that would cross
 * the hard limit is skipped and the next one tried; packing stops at the soft limit. The
 * result is ordered for the model: files by their best item, lines in file order.
 */
export function packItems(candidates: readonly ContextItem[], options: PackOptions): PackResult {
  const soft = Math.min(options.softLimit ?? options.hardLimit, options.hardLimit);
  const ordered = mergeOverlaps(candidates).sort(
    (a, b) => Number(Boolean(b.pinned)) - Number(Boolean(a.pinned)) || b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.startLine - b.startLine),
  );
  const chosen: ContextItem[] = [];
  const dropped: DroppedItem[] = [];
  let used = 0;
  for (const item of ordered) {
    if (used >= soft) {
      dropped.push({ item, reason: 'soft-budget' });
      continue;
    }
    const cost = options.cost(item);
    if (used + cost > options.hardLimit) {
      dropped.push({ item, reason: 'hard-budget', cost });
      continue;
    }
    chosen.push(item);
    used += cost;
  }
  return { items: orderForModel(chosen), used, skipped: dropped.map((entry) => entry.item), dropped };
}

/** Files in order of their best item (pinned first), and each file's items in line order. */
export function orderForModel(items: readonly ContextItem[]): ContextItem[] {
  const best = new Map<string, number>();
  const pinned = new Set<string>();
  for (const item of items) {
    best.set(item.path, Math.max(best.get(item.path) ?? -Infinity, item.score));
    if (item.pinned) pinned.add(item.path);
  }
  return [...items].sort(
    (a, b) =>
      Number(pinned.has(b.path)) - Number(pinned.has(a.path)) ||
      (best.get(b.path) as number) - (best.get(a.path) as number) ||
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) ||
      a.startLine - b.startLine,
  );
}
