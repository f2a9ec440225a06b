import { execFile } from 'node:child_process';
import { LociError } from '../../errors/index.js';

/** Where a bearer token comes from: fixed (an environment variable) or a command re-run before it expires. */
export interface AccessTokenSource {
  /** The token to send now; `refresh` asks for a new one (after a 401). */
  token(options?: { refresh?: boolean }): Promise<string>;
  /** Whether asking again can give another token (a command can; a variable cannot). */
  readonly refreshable: boolean;
  /** How to fix a refused token, for error hints. */
  readonly hint: string;
}

export function fixedToken(token: string, variable: string): AccessTokenSource {
  return {
    token: async () => token,
    refreshable: false,
    hint: `Set a fresh token in ${variable} (e.g. \`export ${variable}=$(gcloud auth print-access-token)\`), or configure embedderOptions.tokenCommand.`,
  };
}

export interface CommandTokenOptions {
  /** argv (no shell): `["gcloud", "auth", "print-access-token"]`; a string is split on spaces. */
  command: string | readonly string[];
  /** How long a printed token lives when the command does not say (`expires_in`); gcloud's last 3600 s. */
  lifetimeSeconds: number;
  /** The command's environment (the library never reads process.env itself). */
  env: Record<string, string | undefined>;
  timeoutMs?: number;
  /** For tests. */
  now?: () => number;
}

const MAX_OUTPUT_BYTES = 64 * 1024;

/**
 * A token printed by a command from the user's own config (never a folder's: see
 * config/folder-rules.ts), re-run shortly before the token expires and after a refusal.
 * The output is the token on one line, or JSON with `access_token` (or `token`) and
 * optionally `expires_in` seconds. Concurrent callers share one run.
 */
export function commandToken(options: CommandTokenOptions): AccessTokenSource {
  const argv = typeof options.command === 'string' ? options.command.trim().split(/\s+/) : [...options.command];
  const now = options.now ?? Date.now;
  const shown = argv.join(' ');
  let current: { token: string; refreshAt: number } | undefined;
  let running: Promise<string> | undefined;

  const run = async (): Promise<string> => {
    const started = now();
    const output = await execute(argv, options);
    const { token, lifetimeSeconds } = parseTokenOutput(output, shown);
    const lifetime = (lifetimeSeconds ?? options.lifetimeSeconds) * 1000;
    // Renewed with a margin (5 minutes, or a tenth of a short lifetime) so no request carries a token about to lapse.
    current = { token, refreshAt: started + lifetime - Math.min(300_000, lifetime / 10) };
    return token;
  };

  return {
    refreshable: true,
    hint: `Check that \`${shown}\` prints a valid access token (run it yourself), or set GOOGLE_ACCESS_TOKEN.`,
    async token({ refresh = false } = {}) {
      if (!refresh && current && now() < current.refreshAt) return current.token;
      running ??= run().finally(() => {
        running = undefined;
      });
      return running;
    },
  };
}

function execute(argv: string[], options: CommandTokenOptions): Promise<string> {
  const [file, ...args] = argv;
  if (!file) throw new LociError('CONFIG_INVALID', 'embedderOptions.tokenCommand is empty.');
  const env = Object.fromEntries(Object.entries(options.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return new Promise((resolve, reject) => {
    execFile(file, args, { env, timeout: options.timeoutMs ?? 30_000, maxBuffer: MAX_OUTPUT_BYTES, windowsHide: true }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : error.killed ? 'timed out' : `exit ${String((error as { code?: unknown }).code ?? '?')}`;
      const said = String(stderr).replace(/\s+/g, ' ').trim().slice(0, 300);
      reject(
        new LociError('EMBEDDER_AUTH', `The token command \`${argv.join(' ')}\` failed (${why})${said ? `: ${said}` : ''}.`, {
          cause: error,
          hint: 'Fix embedderOptions.tokenCommand in your own config (run the command yourself to see why), or set GOOGLE_ACCESS_TOKEN.',
        }),
      );
    });
  });
}

/** A bare token line, or JSON `{ access_token | token, expires_in? }`. */
export function parseTokenOutput(output: string, shown: string): { token: string; lifetimeSeconds?: number } {
  const text = output.trim();
  if (text.startsWith('{')) {
    try {
      const parsed = JSON.parse(text) as { access_token?: unknown; token?: unknown; expires_in?: unknown };
      const token = typeof parsed.access_token === 'string' ? parsed.access_token : parsed.token;
      const expires = Number(parsed.expires_in);
      if (typeof token === 'string' && /^\S+$/.test(token)) return { token, ...(Number.isFinite(expires) && expires > 0 ? { lifetimeSeconds: expires } : {}) };
    } catch {
      // Falls through to the error below.
    }
  } else {
    const line = text.split('\n').pop()?.trim() ?? '';
    if (/^[\x21-\x7e]{8,}$/.test(line)) return { token: line };
  }
  throw new LociError('EMBEDDER_AUTH', `The token command \`${shown}\` printed no token.`, {
    hint: 'It must print the token alone on its last line, or JSON with access_token (and expires_in).',
  });
}
