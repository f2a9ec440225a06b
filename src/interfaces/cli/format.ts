import type { SkipCounts } from '../../sources/spec.js';

export function formatSkips(skipped: SkipCounts): string {
  const parts = Object.entries(skipped)
    .filter(([, count]) => count > 0)
    .map(([reason, count]) => `${count} ${reason}`);
  if (parts.length === 0) return 'none';
  // A folder left out is one skip, whatever it holds (112 excluded folders held ~4,400 files in a trial).
  const folders = skipped['excluded-directory'] > 0 || skipped.ignored > 0;
  return `${parts.join(', ')}${folders ? ' (a skipped folder counts once)' : ''}`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}

/**
 * Control characters (C0 but tab, DEL, C1) and bidirectional overrides, which a file name
 * or a message from an indexed folder could use to rewrite the terminal or fake lines.
 */
const UNPRINTABLE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** Text safe to print to a terminal: every control character shown as a visible escape (`\x1b`, `\n`, `\u202e`). */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (character) => {
    const code = character.codePointAt(0) as number;
    if (character === '\n') return '\\n';
    if (character === '\r') return '\\r';
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
