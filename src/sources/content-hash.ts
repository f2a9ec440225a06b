import { createHash } from 'node:crypto';

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Content-addressed chunk id: same file, place and text give the same id on every machine. */
export function chunkIdOf(path: string, startLine: number, contentHash: string): string {
  return sha256Hex(`${path}\n${startLine}\n${contentHash}`).slice(0, 32);
}
