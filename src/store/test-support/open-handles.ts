import { readdirSync, readlinkSync } from 'node:fs';

/** This process's open file descriptors on `file`, deleted since or not (Linux; elsewhere 0). */
export function openHandles(file: string): number {
  if (process.platform !== 'linux') return 0;
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target === file || target === `${file} (deleted)`;
    } catch {
      return false;
    }
  }).length;
}
