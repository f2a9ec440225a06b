/**
 * Slots grouped by the folder of their path (for memory, the namespace), so a prefix
 * filter visits only the rows that can pass instead of every row.
 */
export class FolderSlots {
  private readonly byFolder = new Map<string, Set<number>>();

  add(path: string, slot: number): void {
    const folder = folderOf(path);
    let slots = this.byFolder.get(folder);
    if (!slots) this.byFolder.set(folder, (slots = new Set()));
    slots.add(slot);
  }

  remove(path: string, slot: number): void {
    const folder = folderOf(path);
    const slots = this.byFolder.get(folder);
    slots?.delete(slot);
    if (slots?.size === 0) this.byFolder.delete(folder);
  }

  clear(): void {
    this.byFolder.clear();
  }

  /** Slots whose path may lie under one of the prefixes: a superset; the filter still decides. */
  under(prefixes: readonly string[]): number[] {
    const out: number[] = [];
    for (const folder of this.foldersUnder(prefixes)) for (const slot of this.byFolder.get(folder) as Set<number>) out.push(slot);
    return out;
  }

  /** Folders whose rows may lie under one of the prefixes. */
  foldersUnder(prefixes: readonly string[]): string[] {
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
    return this.byFolder.get(folder) ?? new Set();
  }
}

export function folderOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}
