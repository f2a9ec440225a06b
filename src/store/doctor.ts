import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LociError } from '../errors/index.js';
import type { StoreLocation } from './location.js';
import { checkDatabase, recordedEmbedder, recordedMeta, type StoreFinding } from './sqlite/check-database.js';
import { MEMORY_DATABASE, SEGMENT_FILE, VECTOR_GRAPH_FILE, VECTOR_GRAPH_FORMAT } from './location.js';
import { SegmentReader } from './segment-file.js';
import { graphFileIntact, graphKeysSummary, graphOfStore } from './graph-file-sum.js';
import { STORE_INSTANCE_STATE } from './file-names.js';
import { temporaryFileAbandoned, temporaryFilePid } from './segment-writer.js';

export type { StoreFinding } from './sqlite/check-database.js';

export interface StoreReport {
  store: string;
  /** No finding is an error (warnings may remain). */
  healthy: boolean;
  findings: StoreFinding[];
}

/**
 * Checks a SQLite store folder without changing it: the full integrity of index.db and
 * memory.db (pages, full-text index, orphan rows), the vector-graph cache files, and who
 * may read the store's files. `root` is the indexed folder (its own mode is not judged).
 */
export function checkStore(location: StoreLocation, root: string): StoreReport {
  if (location.kind !== 'sqlite') {
    throw new LociError('NOT_SUPPORTED', 'loci doctor checks SQLite stores; a PostgreSQL store is checked by the server (e.g. amcheck).');
  }
  const findings: StoreFinding[] = [];
  const memory = join(location.folder, MEMORY_DATABASE);
  if (!exists(location.file) && !exists(memory)) throw new LociError('INDEX_NOT_FOUND', `No loci store at ${location.folder}.`);
  if (!exists(location.file)) {
    findings.push({ file: location.file, check: 'open', status: 'warning', detail: `No index at ${location.file} (only memory).`, fix: 'Run `loci index` to create it.' });
  } else findings.push(...checkDatabase(location.file));
  if (exists(memory)) findings.push(...checkDatabase(memory));
  findings.push(...checkGraphFiles(location.folder, location.file, memory));
  findings.push(...checkSegmentFiles(location.folder, location.file, memory));
  findings.push(...checkModes(location, root, memory));
  return { store: location.file, healthy: !findings.some((finding) => finding.status === 'error'), findings };
}

/** What happens to a graph file that cannot be read: the index's is replaced by the next `loci index` (dropUnreadableGraph). */
const REBUILT = {
  index: 'vector searches are exact until the next `loci index` (for a store of documents, the next indexDocuments call) builds the graph again.',
  memory: 'memory searches are exact until a memory search in a long-lived engine (loci serve, an MCP server, the library) rebuilds the graph.',
};

/** Graph files are caches: a broken or stale one is rebuilt or dropped, never trusted. */
function checkGraphFiles(folder: string, index: string, memory: string): StoreFinding[] {
  const findings: StoreFinding[] = [];
  const { names, current } = cacheFiles(folder, index, memory, false);
  if (!names) return findings;
  for (const name of names) {
    const match = VECTOR_GRAPH_FILE.exec(name);
    if (!match) continue;
    const file = join(folder, name);
    const [, prefix = '', tag, format, keys, temporary] = match;
    if (temporary) {
      findings.push(temporaryFinding(file, name, temporary, 'graph files', ''));
      continue;
    }
    if (format !== VECTOR_GRAPH_FORMAT) {
      findings.push({
        file,
        check: 'graph files',
        status: 'warning',
        detail: `${name} is a graph in an older layout; loci builds the current one and no longer reads it.`,
        fix: 'Run `loci gc` to remove it.',
      });
      continue;
    }
    if (tag !== current.get(prefix)) {
      findings.push({ file, check: 'graph files', status: 'warning', detail: `${name} belongs to an embedder the store no longer uses.`, fix: 'Run `loci gc` to remove it.' });
      continue;
    }
    const partner = keys ? file.slice(0, -'.keys'.length) : `${file}.keys`;
    const rebuilt = prefix ? REBUILT.memory : REBUILT.index;
    const fix = (files: string) => (prefix ? `Delete ${files}.` : `Run \`loci index\` (a store of documents: the next indexDocuments call): it deletes ${files} and builds the graph again.`);
    if (!exists(partner)) {
      findings.push({ file, check: 'graph files', status: 'warning', detail: `${name} has no ${keys ? 'graph' : 'key list'} beside it; ${rebuilt}`, fix: fix(file) });
    } else if (keys && statSync(file).size % 4 !== 0) {
      findings.push({ file, check: 'graph files', status: 'warning', detail: `${name} is truncated; ${rebuilt}`, fix: fix(`${file} and ${partner}`) });
    } else if (!keys) {
      const summary = graphKeysSummary(file);
      const instance = recordedMeta(prefix ? memory : index, `state:${STORE_INSTANCE_STATE}`);
      // Every byte against the size and checksum saved with the key list (lists saved before sums have none).
      const sum = summary?.sum;
      if (!graphOfStore(summary?.store, instance)) {
        const detail = `${name} was saved for another store (one deleted and made again in this folder while a process still had the old one open): searches never read it; ${rebuilt}`;
        findings.push({ file, check: 'graph files', status: 'warning', detail, fix: fix(`${file} and ${partner}`) });
      } else if (sum && !graphFileIntact(file, sum)) {
        findings.push({
          file,
          check: 'graph files',
          status: 'warning',
          detail: `${name} does not match the size and checksum saved with its key list (damaged): searches never read it; ${rebuilt}`,
          fix: fix(`${file} and ${partner}`),
        });
      }
    }
  }
  if (!findings.some((finding) => finding.check === 'graph files')) findings.push({ file: folder, check: 'graph files', status: 'ok', detail: 'ok' });
  return findings;
}

/**
 * A save's temporary file (`suffix`: what its name adds to the file saved). One whose process
 * still runs is a save in progress, and deleting it would fail that save: it is reported as
 * such. One whose process is gone is removed by `loci gc` and by the next save of that file.
 */
function temporaryFinding(file: string, name: string, suffix: string, check: string, kept: string): StoreFinding {
  const pid = temporaryFilePid(suffix);
  if (pid === undefined) {
    // `<file>.tmp`, shared by every process of a loci from before per-process names.
    return { file, check, status: 'warning', detail: `${name} is left over from a save by an earlier version of loci.${kept}`, fix: `Delete ${file} once no older loci process is using this store.` };
  }
  if (!temporaryFileAbandoned(file, pid)) return { file, check, status: 'ok', detail: `${name} is a save in progress by process ${pid}, which is running: leave it (the save renames or removes it).` };
  return {
    file,
    check,
    status: 'warning',
    detail: `${name} is left over from a save that process ${pid} did not finish (it is no longer running).${kept}`,
    fix: 'Run `loci gc` to remove it once it is an hour old (a process of another machine sharing this folder could still be writing it); the next save of this file removes it too.',
  };
}

/** Segment files are caches too: read whole and checked (checksum, bounds), never repaired in place. */
function checkSegmentFiles(folder: string, index: string, memory: string): StoreFinding[] {
  const findings: StoreFinding[] = [];
  // Segments exist for lexical-only stores too (embedder none).
  const { names, current } = cacheFiles(folder, index, memory, true);
  if (!names) return findings;
  for (const name of names) {
    const match = SEGMENT_FILE.exec(name);
    if (!match) continue;
    const file = join(folder, name);
    const [, prefix = '', hash, temporary] = match;
    if (temporary) {
      findings.push(temporaryFinding(file, name, temporary, 'segment files', ' The last good segment is still used.'));
    } else if (hash !== current.get(prefix)) {
      findings.push({ file, check: 'segment files', status: 'warning', detail: `${name} belongs to an embedder the store no longer uses.`, fix: 'Run `loci gc` to remove it.' });
    } else {
      try {
        const reader = SegmentReader.open(file);
        try {
          reader.verifyAll();
        } finally {
          reader.close();
        }
      } catch (error) {
        findings.push({
          file,
          check: 'segment files',
          status: 'warning',
          detail: `${name} is damaged (${(error as Error).message}); a search that reads the damaged part drops it and answers from the store.`,
          fix: `Delete ${file}: the next index run or search rebuilds it from the store.`,
        });
      }
    }
  }
  if (!findings.some((finding) => finding.check === 'segment files')) findings.push({ file: folder, check: 'segment files', status: 'ok', detail: 'ok' });
  return findings;
}

/** Store files hold indexed source and agent memory: others on the machine should not read them. */
function checkModes(location: Extract<StoreLocation, { kind: 'sqlite' }>, root: string, memory: string): StoreFinding[] {
  const findings: StoreFinding[] = [];
  const open = (path: string, mask: number) => {
    try {
      return (statSync(path).mode & mask) !== 0;
    } catch {
      return false;
    }
  };
  const folderOpen = open(location.folder, 0o077);
  if (location.folder !== root && folderOpen) {
    findings.push({ file: location.folder, check: 'permissions', status: 'warning', detail: `${location.folder} can be opened by other users.`, fix: `chmod 700 ${location.folder}` });
  }
  // Inside a folder only its owner can enter, the files' own modes do not matter.
  const reachable = folderOpen || location.folder === root;
  const files = reachable ? [location.file, memory].flatMap((file) => [file, `${file}-wal`, `${file}-shm`]).filter((file) => open(file, 0o066)) : [];
  if (files.length > 0) {
    findings.push({ file: location.folder, check: 'permissions', status: 'warning', detail: `${files.length} store files can be read by other users.`, fix: `chmod 600 ${files.join(' ')}` });
  }
  if (!findings.some((finding) => finding.check === 'permissions')) findings.push({ file: location.folder, check: 'permissions', status: 'ok', detail: 'owner only' });
  return findings;
}

function embedderTag(file: string, withNone: boolean): string | undefined {
  const embedder = exists(file) ? recordedEmbedder(file) : undefined;
  return embedder && (withNone || embedder !== 'none') ? createHash('sha256').update(embedder).digest('hex').slice(0, 12) : undefined;
}

/** The store folder's file names, and the embedder tag each cache-file prefix must carry ('' the index, 'memory-' memory). */
function cacheFiles(folder: string, index: string, memory: string, withNone: boolean): { names: string[] | undefined; current: Map<string, string | undefined> } {
  let names: string[] | undefined;
  try {
    names = readdirSync(folder);
  } catch {
    // An unreadable folder: nothing to say about its files here.
  }
  return {
    names,
    current: new Map([
      ['', embedderTag(index, withNone)],
      ['memory-', embedderTag(memory, withNone)],
    ]),
  };
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}
