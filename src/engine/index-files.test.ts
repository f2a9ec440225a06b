import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { segmentName, vectorGraphName } from '../store/location.js';
import { removeStaleIndexFiles } from './index-files.js';

describe('removeStaleIndexFiles (loci gc)', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'loci-index-files-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('removes the temporary files of saves whose process is gone, and leaves those of running processes and of this one', async () => {
    const graph = vectorGraphName('static:test', 'index');
    const segment = segmentName('static:test', 'index');
    const dead = spawnSync(process.execPath, ['-e', '0']).pid as number;
    const live = process.ppid;
    const names = {
      current: [graph, `${graph}.keys`, segment],
      dead: [`${graph}.${dead}.abc123.tmp`, `${graph}.keys.${dead}.abc123.tmp`, `${segment}.${dead}.def456.tmp`, `${segment}.${dead}.def456.part0.tmp`],
      live: [`${graph}.${live}.abc123.tmp`, `${segment}.${live}.def456.part3.tmp`],
      own: [`${segment}.${process.pid}.aaa111.tmp`],
      // The shared name of builds before per-process names: its writer cannot be told.
      legacy: [`${graph}.tmp`],
    };
    // Written by a process gone now, but only a minute ago: perhaps a process of another machine sharing the folder.
    const recent = `${segment}.${dead}.ccc333.tmp`;
    const hoursAgo = new Date(Date.now() - 2 * 3_600_000);
    for (const name of Object.values(names).flat()) {
      writeFileSync(join(folder, name), 'x');
      // This process's own file was written since it started (another thread's save in progress).
      if (!names.own.includes(name)) utimesSync(join(folder, name), hoursAgo, hoursAgo);
    }
    writeFileSync(join(folder, recent), 'x');
    utimesSync(join(folder, recent), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    // Written by an earlier process given this pid: a day before this one started.
    const earlier = `${graph}.${process.pid}.bbb222.tmp`;
    writeFileSync(join(folder, earlier), 'x');
    const dayAgo = new Date(Date.now() - 86_400_000);
    utimesSync(join(folder, earlier), dayAgo, dayAgo);

    const removed = await removeStaleIndexFiles(folder, 'static:test');
    expect(removed.sort()).toEqual([...names.dead, earlier].sort());
    expect(readdirSync(folder).sort()).toEqual([...names.current, ...names.live, ...names.own, ...names.legacy, recent].sort());
    for (const name of names.dead) expect(existsSync(join(folder, name))).toBe(false);
  });
});
