import { sep } from 'node:path';

/**
 * Error text sent over HTTP or MCP without the machine's absolute paths: a served root's
 * folder becomes its name, any other absolute path keeps only its last part. Callers see
 * paths relative to the root they asked about, never the host's layout (home folder,
 * user name, store location).
 */
export function redactPaths(text: string, roots: ReadonlyArray<{ name: string; path: string }>): string {
  let out = text;
  // Longest first, so a root nested in another is named by itself.
  for (const root of [...roots].sort((a, b) => b.path.length - a.path.length)) {
    out = out
      .split(root.path + sep)
      .join('')
      .split(root.path)
      .join(root.name);
  }
  // POSIX (/a/b) and Windows (C:\a\b) absolute paths with at least two parts.
  return out.replace(/(^|[\s"'`(=:])((?:[A-Za-z]:)?[\\/](?:[^\s"'`()\\/]+[\\/])+)([^\s"'`()\\/]*)/g, (_match, before: string, _dirs: string, last: string) => `${before}…/${last}`);
}
