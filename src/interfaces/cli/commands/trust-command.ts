import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { readFolderConfig, type FolderConfigFile } from '../../../config/folder-config.js';
import { refusedFolderKeys } from '../../../config/folder-rules.js';
import { LociError } from '../../../errors/index.js';
import { isRemoteSource } from '../../../sources/remote-repo.js';
import { resolveRoot, trustedFoldersFile, type CliIo } from '../cli-context.js';
import { readTrustedFolders, writeTrustedFolders, type TrustedFolder } from '../trusted-folders.js';

/**
 * `loci trust [dir]`: the one explicit step that lets a folder's own loci.config.json set
 * more than local keys (endpoints, key variables, the embedder, the store…). Recorded in
 * the user's config folder for the folder's real path and the file's exact content.
 */
export function registerTrustCommand(program: Command, io: CliIo): void {
  program
    .command('trust')
    .description("Trust a folder's own loci.config.json (its endpoints, key variables, embedder) after you have read it; recorded outside the folder for this exact content.")
    .argument('[dir]', 'the folder (default: the current one), or a repository URL indexed before')
    .option('--list', 'list trusted folders and whether their config changed since')
    .option('--revoke', 'forget the trust given to the folder')
    .option('--json', 'print JSON')
    .action(async (dir: string | undefined, flags: { list?: boolean; revoke?: boolean; json?: boolean }) => {
      const file = trustedFoldersFile(io);
      const folders = readTrustedFolders(file);
      if (flags.list) return list(io, folders, flags.json === true);
      if (flags.revoke) {
        const path = realPathOr(resolveRoot(io, dir, { mustExist: false }));
        const kept = folders.filter((entry) => entry.path !== path);
        if (kept.length !== folders.length) writeTrustedFolders(file, kept);
        const revoked = kept.length !== folders.length;
        io.stdout.write(flags.json ? `${JSON.stringify({ path, revoked })}\n` : `${revoked ? 'No longer trusted' : 'Was not trusted'}: ${path}\n`);
        return;
      }
      const root = resolveRoot(io, dir, { mustExist: true });
      const config = readFolderConfig(root);
      if (!config) {
        throw new LociError('INVALID_ARGUMENT', `${root} has no loci.config.json: there is nothing to trust.`, {
          hint: dir && isRemoteSource(dir) ? 'Run `loci index <url>` first.' : 'Pass the folder that holds the loci.config.json.',
        });
      }
      const entry: TrustedFolder = { path: config.realRoot, configSha256: config.sha256, trustedAt: new Date().toISOString() };
      writeTrustedFolders(file, [...folders.filter((existing) => existing.path !== entry.path), entry]);
      const granted = refusedFolderKeys(config.values);
      if (flags.json) {
        io.stdout.write(`${JSON.stringify({ ...entry, file: config.path, granted: granted.map(({ path, value }) => ({ path, value })) })}\n`);
        return;
      }
      io.stdout.write(
        describeGrant(
          config,
          granted.map((key) => `  ${key.path} = ${JSON.stringify(key.value)}`),
          file,
        ),
      );
    });
}

function describeGrant(config: FolderConfigFile, lines: string[], store: string): string {
  const head = `Trusted ${config.path} (sha256 ${config.sha256.slice(0, 12)}).`;
  const body = lines.length > 0 ? `It may now set:\n${lines.join('\n')}\n` : 'It sets only local keys, which need no trust.\n';
  return `${head}\n${body}Recorded in ${store}; if the file changes, run loci trust again. Revoke with loci trust --revoke ${config.realRoot}.\n`;
}

function list(io: CliIo, folders: readonly TrustedFolder[], json: boolean): void {
  const rows = folders.map((entry) => ({ ...entry, state: stateOf(entry) }));
  if (json) {
    io.stdout.write(`${JSON.stringify({ folders: rows })}\n`);
    return;
  }
  if (rows.length === 0) io.stdout.write('No trusted folders.\n');
  for (const row of rows) io.stdout.write(`${row.state.padEnd(8)} ${printable(row.path)} (trusted ${printable(row.trustedAt)})\n`);
}

/** trusted: the file is as it was; changed: it needs trusting again; missing: no file now. */
function stateOf(entry: TrustedFolder): 'trusted' | 'changed' | 'missing' {
  try {
    const config = readFolderConfig(entry.path);
    if (!config) return 'missing';
    return config.sha256 === entry.configSha256 ? 'trusted' : 'changed';
  } catch {
    return 'missing';
  }
}

/** Folder names are not ours: control characters must not reach the terminal. */
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}

function realPathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
