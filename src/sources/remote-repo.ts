import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { LociError } from '../errors/index.js';

/** `https://host/org/repo(.git)`, `ssh://…`, `git@host:org/repo.git` or `file:///path/repo.git`. */
export function isRemoteSource(spec: string): boolean {
  return /^(https?|ssh|git|file):\/\//i.test(spec) || /^[\w.-]+@[\w.-]+:[\w./-]+$/.test(spec);
}

/** Where a remote repository is cloned: `<cacheDir>/<host>/<path>` without `.git`. */
export function remoteCachePath(url: string, cacheDir: string): string {
  const scp = /^[\w.-]+@([\w.-]+):(.+)$/.exec(url);
  let host: string;
  let path: string;
  if (scp) {
    host = scp[1] as string;
    path = scp[2] as string;
  } else {
    const parsed = new URL(url);
    host = parsed.protocol === 'file:' ? 'local' : parsed.hostname;
    path = parsed.pathname;
  }
  const parts = path
    .replace(/\.git\/?$/, '')
    .split('/')
    .filter((part) => part && part !== '.' && part !== '..');
  if (parts.length === 0) throw new LociError('INVALID_ARGUMENT', `Cannot tell the repository from ${redactUrl(url)}.`, { hint: 'Use https://host/org/repo(.git).' });
  return join(cacheDir, host.replace(/[^\w.-]/g, '_'), ...parts.map((part) => part.replace(/[^\w.-]/g, '_')));
}

export interface SyncOptions {
  url: string;
  cacheDir: string;
  /** Environment; LOCI_GIT_TOKEN (or GITHUB_TOKEN) authenticates HTTPS, for this command only. */
  env: Record<string, string | undefined>;
  /** Hosts (`host` or `host:port`) the user allows LOCI_GIT_TOKEN to go to; default none. */
  tokenHosts?: readonly string[];
  signal?: AbortSignal;
}

/**
 * DeepWiki's remote sources, kept current: a shallow clone into the cache on first use, a
 * shallow fetch and hard reset on every later one. A token is passed to git as a one-off
 * header in git's environment, so it is never in the remote URL, .git/config, a command line or a log.
 */
export async function syncRemoteRepo(options: SyncOptions): Promise<{ root: string; commit: string; cloned: boolean }> {
  const root = remoteCachePath(options.url, options.cacheDir);
  const credential = gitCredentialFor(options.url, options.env, options.tokenHosts ?? []);
  const token = credential?.token;
  // Handed to git through its environment (GIT_CONFIG_COUNT, git >= 2.31), which only this
  // user can read: not on the command line (visible in `ps`), the URL or .git/config. The key
  // is scoped to this origin (http.<url>.extraHeader), so a redirect elsewhere does not carry it.
  const auth: Record<string, string> = credential
    ? {
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: `http.${credential.scope}.extraHeader`,
        GIT_CONFIG_VALUE_0: `Authorization: Basic ${Buffer.from(`x-access-token:${credential.token}`).toString('base64')}`,
      }
    : {};
  const withheld = !credential && options.env.LOCI_GIT_TOKEN && /^https?:/i.test(options.url) ? hostOf(options.url) : undefined;
  const plaintext = /^http:/i.test(options.url);
  const git = (args: string[], cwd?: string) =>
    new Promise<string>((resolve, reject) => {
      execFile(
        'git',
        args,
        {
          cwd,
          env: { PATH: options.env.PATH ?? process.env.PATH ?? '', HOME: options.env.HOME ?? '', GIT_TERMINAL_PROMPT: '0', ...auth },
          maxBuffer: 16 * 1024 * 1024,
          ...(options.signal ? { signal: options.signal } : {}),
        },
        (error, stdout, stderr) => {
          if (!error) return resolve(stdout.trim());
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
            return reject(
              new LociError('NOT_SUPPORTED', 'Indexing a remote repository needs git, which is not installed.', {
                hint: 'Install git (apt-get install git), or clone it yourself and index the folder.',
              }),
            );
          }
          if (options.signal?.aborted) return reject(new LociError('ABORTED', 'The clone was cancelled.'));
          const message = redactSecrets(String(stderr || error.message), token)
            .trim()
            .split('\n')
            .slice(-3)
            .join(' ');
          const hint =
            withheld && plaintext
              ? 'LOCI_GIT_TOKEN is never sent over plain http:; use the https:// URL of the repository.'
              : withheld
                ? `LOCI_GIT_TOKEN is sent only over HTTPS to hosts you list: if this repository needs it, set LOCI_GIT_TOKEN_HOSTS=${withheld} (or git.tokenHosts in your own config).`
                : 'Check the URL, your network, and LOCI_GIT_TOKEN (with LOCI_GIT_TOKEN_HOSTS) for private repositories.';
          reject(new LociError('ROOT_NOT_FOUND', `git ${args[0]} of ${redactUrl(options.url)} failed: ${message.replace(/[\s.]+$/, '')}.`, { hint }));
        },
      );
    });
  let cloned = false;
  if (existsSync(join(root, '.git'))) {
    await git(['fetch', '--quiet', '--depth', '1', 'origin', 'HEAD'], root);
    await git(['reset', '--quiet', '--hard', 'FETCH_HEAD'], root);
  } else {
    await mkdir(join(root, '..'), { recursive: true });
    await git(['clone', '--quiet', '--depth', '1', options.url, root]);
    cloned = true;
  }
  return { root, commit: await git(['rev-parse', 'HEAD'], root), cloned };
}

/**
 * The token git may send for `url`, if any: LOCI_GIT_TOKEN only to hosts the user listed,
 * GITHUB_TOKEN only to github.com, and never over plain http:. A repository's own config
 * never reaches this list (see config/folder-rules.ts).
 */
export function gitCredentialFor(
  url: string,
  env: Record<string, string | undefined>,
  tokenHosts: readonly string[],
): { token: string; variable: 'LOCI_GIT_TOKEN' | 'GITHUB_TOKEN'; scope: string } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined; // scp-style git@host:path goes over ssh, which has its own keys
  }
  if (parsed.protocol !== 'https:') return undefined;
  const host = parsed.hostname.toLowerCase();
  const hostPort = parsed.port ? `${host}:${parsed.port}` : host;
  const scope = `https://${parsed.host.toLowerCase()}/`;
  const listed = tokenHosts.some((entry) => {
    const name = entry
      .trim()
      .toLowerCase()
      .replace(/^https:\/\//, '')
      .replace(/\/+$/, '');
    return name !== '' && (name === host || name === hostPort);
  });
  if (env.LOCI_GIT_TOKEN && listed) return { token: env.LOCI_GIT_TOKEN, variable: 'LOCI_GIT_TOKEN', scope };
  if (env.GITHUB_TOKEN && host === 'github.com' && !parsed.port) return { token: env.GITHUB_TOKEN, variable: 'GITHUB_TOKEN', scope };
  return undefined;
}

function hostOf(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.port ? `${parsed.hostname}:${parsed.port}` : parsed.hostname;
  } catch {
    return url;
  }
}

/** Never print credentials embedded in a URL. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username) parsed.username = '***';
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

function redactSecrets(text: string, token: string | undefined): string {
  return token ? text.split(token).join('***') : text;
}
