import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { printable } from './format.js';
import { createProgressBar } from './progress-bar.js';

describe('printable', () => {
  it('shows terminal escapes, newlines and bidi overrides as visible escapes', () => {
    expect(printable('a\x1b[2Jb')).toBe('a\\x1b[2Jb');
    expect(printable('x\x1b]0;title\x07y')).toBe('x\\x1b]0;title\\x07y');
    expect(printable('line\nfake\rover')).toBe('line\\nfake\\rover');
    expect(printable('\u202etxt.exe')).toBe('\\u202etxt.exe');
    expect(printable('\x9b31m')).toBe('\\x9b31m');
  });

  it('leaves ordinary names alone, tabs and non-ASCII letters included', () => {
    expect(printable('src/naïve café/日本.ts\tx')).toBe('src/naïve café/日本.ts\tx');
  });
});

describe('the progress bar', () => {
  it('draws a file name with escape sequences inert', () => {
    let output = '';
    const stream = Object.assign(
      new Writable({
        write: (chunk, _encoding, done) => {
          output += String(chunk);
          done();
        },
      }),
      { isTTY: true, columns: 200 },
    );
    const bar = createProgressBar(stream, 'indexing');
    bar.onIndexEvent({ type: 'file-indexed', done: 1, total: 1, chunks: 1, path: 'evil\x1b[2J\x1b]0;owned\x07.ts' });
    // The bar's own control sequence (carriage return, clear line) is the only one written.
    expect(output.replaceAll('\r\x1b[2K', '')).not.toMatch(/[\x00-\x1f\x7f]/);
    expect(output).toContain('evil\\x1b[2J\\x1b]0;owned\\x07.ts');
  });
});

describe('memory records from other callers print their control characters as escapes', () => {
  it('shows ESC and bidi overrides in list, get and search output instead of sending them to the terminal', async () => {
    const { formatHits, formatRecord, formatRecords } = await import('./commands/memory-format.js');
    const record = { id: 'r1', namespace: 'n', kind: 'note', text: 'ctl \u001b[31m red \u202e\nline two', time: 0, updatedAt: 0, mergedCount: 0, metadata: { note: '\u001b]0;title\u0007' } } as never;
    for (const out of [formatRecord(record), formatRecords([record]), formatHits([{ record, score: 1, signals: {} }] as never)]) {
      expect(out).not.toMatch(/[\u001b\u0007\u202e]/);
      expect(out).toContain('\\x1b[31m');
    }
    expect(formatRecord(record)).toContain('\\u202e\nline two');
  });
});
