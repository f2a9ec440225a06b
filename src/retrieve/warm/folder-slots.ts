/**
 * Slots grouped by the folder of their path (for memory, the namespace), so a prefix
 * filter visits only the rows that can pass instead of every row.
 */
export class FolderSlots {
  private readonly byFolder = new Map<string, Set<number>>();
  /** Where the live slots are read from at the first query, when grouping was deferred. */
  private pending: (() => Iterable<readonly [string, number]>) | undefined;

  /**
   * Groups lazily: the live slots are read from `source` when a query first needs them (a
   * restored index pays nothing until a prefix filter asks). Until then add and remove
   * are no-ops, since the source reflects them.
   */
  defer(source: () => Iterable<readonly [string, number]>): void {
    this.byFolder.clear();
    this.pending = source;
  }

  private settle(): void {
    const source = this.pending;
    if (!source) return;
    this.pending = undefined;
    for (const [path, slot] of source()) this.add(path, slot);
  }

  add(path: string, slot: number): void {
    if (this.pending) return;
    const folder = folderOf(path);
    let slots = this.byFolder.get(folder);
    if (!slots) this.byFolder.set(folder, (slots = new Set()));
    slots.add(slot);
  }

  remove(path: string, slot: number): void {
    if (this.pending) return;
    const folder = folderOf(path);
    const slots = this.byFolder.get(folder);
    slots?.delete(slot);
    if (slots?.size === 0) this.byFolder.delete(folder);
  }

  clear(): void {
    this.pending = undefined;
    this.byFolder.clear();
  }

  /** Slots whose path may lie under one of the prefixes: a superset; the filter still decides. */
  under(prefixes: readonly string[]): number[] {
    this.settle();
    const out: number[] = [];
    for (const folder of this.foldersUnder(prefixes)) for (const slot of this.byFolder.get(folder) as Set<number>) out.push(slot);
    return out;
  }

  /** Folders whose rows may lie under one of the prefixes. */
  foldersUnder(prefixes: readonly string[]): string[] {
    this.settle();
    const out: string[] = [];
    for (const folder of this.byFolder.keys()) {
      const withSlash = `${folder}/`;
      // A path is `folder/name`: it can start with a prefix only if one of them covers the
      // folder or reaches into it; root files (folder '') can match any prefix.
      if (folder === '' || prefixes.some((prefix) => withSlash.startsWith(prefix) || prefix.startsWith(withSlash))) out.push(folder);
    }
    return out;
  }

  slotsOf(folder: string): ReadonlySet<number> {
    this.settle();
    return this.byFolder.get(folder) ?? new Set();
  }
}

export function folderOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}
