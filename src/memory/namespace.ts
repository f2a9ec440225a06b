import { LociError } from '../errors/index.js';

const segment = /^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,127}$/;

/** Validates a namespace: slash-separated segments of letters, digits and . _ : @ + -. */
export function normalizeNamespace(namespace: string): string {
  const trimmed = namespace.trim().replace(/^\/+|\/+$/g, '');
  if (trimmed === '') throw new LociError('INVALID_ARGUMENT', 'A memory namespace cannot be empty.', { hint: 'Use e.g. "agent/boss" or "user/42/session/7".' });
  const parts = trimmed.split('/');
  for (const part of parts) {
    if (!segment.test(part)) {
      throw new LociError('INVALID_ARGUMENT', `Invalid namespace "${namespace}": segment "${part}" may only hold letters, digits and . _ : @ + - (and must start with a letter or digit).`);
    }
  }
  if (parts.length > 16) throw new LociError('INVALID_ARGUMENT', `Namespace "${namespace}" is nested more than 16 levels deep.`);
  return parts.join('/');
}

/** A record lives at `<namespace>/#<id>`: the `#` keeps ids apart from namespace segments. */
export function recordPath(namespace: string, id: string): string {
  return `${namespace}/#${id}`;
}

export function parseRecordPath(path: string): { namespace: string; id: string } {
  const at = path.lastIndexOf('/#');
  return { namespace: path.slice(0, at), id: path.slice(at + 2) };
}

/** The path prefix that selects a namespace and all namespaces under it. */
export function namespacePrefix(namespace: string): string {
  return `${normalizeNamespace(namespace)}/`;
}
