import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSourceFile } from './read-source.js';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'loci-read-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function read(content: string | Uint8Array, limit = 1_000_000) {
  const path = join(folder, 'file');
  await writeFile(path, content);
  return readSourceFile(path, limit);
}

describe('readSourceFile', () => {
  it('reads UTF-8 text and strips a BOM', async () => {
    expect(await read('hello\n')).toMatchObject({ ok: true, text: 'hello\n', invalidUtf8: false });
    expect(await read(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]))).toMatchObject({ ok: true, text: 'hi' });
  });

  it('decodes invalid UTF-8 with replacement characters instead of failing', async () => {
    const result = await read(new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a])); // "caf\xe9\n" in Latin-1
    expect(result).toMatchObject({ ok: true, text: 'caf\ufffd\n', invalidUtf8: true });
  });

  it('decodes UTF-16 with a BOM', async () => {
    const text = 'héllo';
    const bytes = new Uint8Array(2 + text.length * 2);
    bytes.set([0xff, 0xfe]);
    for (let index = 0; index < text.length; index++) bytes[2 + index * 2] = text.charCodeAt(index);
    expect(await read(bytes)).toMatchObject({ ok: true, text });
  });

  it('refuses binary content and oversize files', async () => {
    expect(await read(new Uint8Array([0x41, 0x00, 0x42]))).toMatchObject({ ok: false, reason: 'binary' });
    expect(await read(new Uint8Array(Array.from({ length: 100 }, (_, index) => (index % 2 ? 1 : 65))))).toMatchObject({ ok: false, reason: 'binary' });
    expect(await read('x'.repeat(20), 10)).toMatchObject({ ok: false, reason: 'too-large' });
  });

  it('keeps ANSI colour codes and tabs as text', async () => {
    expect(await read('\x1b[31mred\x1b[0m\tok\n')).toMatchObject({ ok: true });
  });

  it('reports a missing file as unreadable', async () => {
    expect(await readSourceFile(join(folder, 'missing'), 100)).toMatchObject({ ok: false, reason: 'unreadable', message: expect.stringContaining('vanished') });
  });
});
