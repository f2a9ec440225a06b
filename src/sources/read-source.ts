import { readFileSync } from 'node:fs';
import type { ReadResult } from './spec.js';

const SNIFF_BYTES = 8192;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const lenientUtf8 = new TextDecoder('utf-8');

/**
 * Reads a file as text, or says why it cannot be indexed. Invalid UTF-8 is decoded with
 * replacement characters (a Latin-1 file is still worth indexing); UTF-16 with a BOM is
 * decoded as such; content that looks binary is refused.
 */
export async function readSourceFile(absolutePath: string, maxFileBytes: number): Promise<ReadResult> {
  let bytes: Uint8Array;
  try {
    // Synchronous on purpose: files are capped at maxFileBytes (1 MB by default), and
    // fs.promises.readFile costs ~20x more per small file on this kind of machine.
    bytes = readFileSync(absolutePath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'ENOENT' ? 'file vanished' : code;
    return { ok: false, reason: 'unreadable', message: `${absolutePath}: ${why}` };
  }
  if (bytes.length > maxFileBytes) {
    return { ok: false, reason: 'too-large', message: `${absolutePath}: ${bytes.length} bytes exceeds the ${maxFileBytes}-byte limit` };
  }
  const decoded = decodeSourceText(bytes);
  if (!decoded) return { ok: false, reason: 'binary', message: `${absolutePath}: binary content` };
  return { ok: true, text: decoded.text, bytes, invalidUtf8: decoded.invalidUtf8 };
}

/** The text of a file's bytes as indexing reads it, or undefined when the content looks binary. */
export function decodeSourceText(bytes: Uint8Array): { text: string; invalidUtf8: boolean } | undefined {
  const utf16 = utf16Encoding(bytes);
  if (utf16) return { text: new TextDecoder(utf16).decode(bytes.subarray(2)), invalidUtf8: false };
  if (looksBinary(bytes)) return undefined;
  const body = hasUtf8Bom(bytes) ? bytes.subarray(3) : bytes;
  try {
    return { text: strictUtf8.decode(body), invalidUtf8: false };
  } catch {
    return { text: lenientUtf8.decode(body), invalidUtf8: true };
  }
}

function utf16Encoding(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

function hasUtf8Bom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/** NUL bytes, or more than 10 % control characters in the first 8 KB. */
export function looksBinary(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, SNIFF_BYTES);
  if (sample.length === 0) return false;
  let control = 0;
  for (const byte of sample) {
    if (byte === 0) return true;
    // \t \n \f \r \b and ESC (ANSI colours) are normal in text files
    if (byte < 32 && byte !== 9 && byte !== 10 && byte !== 12 && byte !== 13 && byte !== 8 && byte !== 27) control++;
  }
  return control / sample.length > 0.1;
}
