import { Transform, type TransformCallback } from 'node:stream';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../shared/json-limits.js';

/** Largest MCP message accepted over stdio (the SDK's HTTP default body size). */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export interface LineLimitOptions {
  maxLineBytes?: number;
  /** Writes one JSON-RPC line to the client (the refusal of a dropped message). */
  respond: (line: string) => void;
  /** Tells the operator (stderr) what was dropped. */
  warn: (text: string) => void;
}

const NEWLINE = 0x0a;
const KEEP = 512; // bytes kept from both ends of a dropped line, to find its request id

/**
 * Sits between stdin and the SDK's stdio transport. The SDK closes the whole server when
 * a message overflows its buffer; here a line over the limit (or nested too deep) is
 * dropped, answered with a JSON-RPC error and logged, and the server keeps serving.
 */
export function createLineLimit(options: LineLimitOptions): Transform {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  let pieces: Buffer[] = [];
  let length = 0;
  let dropping = false;
  let head = Buffer.alloc(0);
  let tail = Buffer.alloc(0);

  const refuse = (id: string | number | null, reason: string) => {
    options.warn(`loci mcp: dropped a message: ${reason}`);
    options.respond(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32600, message: `Invalid Request: ${reason}` } }));
  };

  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      let from = 0;
      while (from < chunk.length) {
        const end = chunk.indexOf(NEWLINE, from);
        const piece = chunk.subarray(from, end < 0 ? chunk.length : end);
        from = end < 0 ? chunk.length : end + 1;
        if (!dropping && length + piece.length > maxLineBytes) {
          dropping = true;
          head = Buffer.concat([...pieces, piece]).subarray(0, KEEP);
          pieces = [];
        }
        if (dropping) tail = Buffer.concat([tail, piece]).subarray(-KEEP);
        else pieces.push(piece);
        length += piece.length;
        if (end < 0) break;
        if (dropping) refuse(idOf(head.toString('utf8'), tail.toString('utf8')), `the message is ${length} bytes; the limit is ${maxLineBytes}.`);
        else {
          const line = Buffer.concat(pieces);
          const text = line.toString('utf8');
          if (jsonDepthExceeds(text)) refuse(idOf(text, text), `JSON nested deeper than ${MAX_JSON_DEPTH} levels.`);
          else if (line.length > 0) this.push(Buffer.concat([line, Buffer.from('\n')]));
        }
        pieces = [];
        length = 0;
        dropping = false;
        head = tail = Buffer.alloc(0);
      }
      callback();
    },
  });
}

/** The request id of a top-level message, from where clients put it (first or last key); else null. */
function idOf(head: string, tail: string): string | number | null {
  const match = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"[^"\\]{0,200}")/.exec(head) ?? /,\s*"id"\s*:\s*(-?\d+|"[^"\\]{0,200}")\s*\}\s*$/.exec(tail);
  if (!match) return null;
  return JSON.parse(match[1] as string) as string | number;
}
