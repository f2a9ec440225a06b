import type { Command } from 'commander';
import { createLoci } from '../../../engine/create-loci.js';
import { isLociError } from '../../../errors/index.js';
import type { IndexSummary } from '../../../indexing/events.js';
import { isRemoteSource, redactUrl, syncRemoteRepo } from '../../../sources/remote-repo.js';
import { loadCliConfig, repoCacheDir, resolveIndexedRoot, trustedCliConfig, type CliIo } from '../cli-context.js';
import { createProgressBar } from '../progress-bar.js';
import { withInterruptReport } from '../interrupt.js';
import { formatSkips, printable } from '../format.js';

export function registerIndexCommand(program: Command, io: CliIo): void {
  program
    .command('index')
    .description('Index a folder (default: the current one) into its store; re-runs only redo what changed.')
    .argument('[dir]', 'folder to index, or a git URL (https://host/org/repo) to clone shallowly into the cache and pull on re-index')
    .option('--store <path>', 'store folder, .db file or postgres://user@host/db?namespace=name (default <dir>/.loci)')
    .option('--embedder <id>', 'embedder id, or "none" for a lexical-only index')
    .option('--config <file>', 'config file (default <dir>/loci.config.json)')
    .option('--json', 'print the summary as JSON')
    .option('--include-secrets', 'also index secrets files (.env, id_rsa, *.pem, …) and files holding keys or tokens, skipped by default')
    .action(async (dir: string | undefined, flags: { store?: string; embedder?: string; config?: string; json?: boolean; includeSecrets?: boolean }) => {
      let root: string;
      if (dir && isRemoteSource(dir)) {
        // Which hosts get the git token is the user's choice: the clone's own config is not read yet.
        const tokenHosts = trustedCliConfig(io, [], flags.config).git.tokenHosts;
        const synced = await syncRemoteRepo({ url: dir, cacheDir: repoCacheDir(io), env: io.env, tokenHosts });
        root = synced.root;
        if (!flags.json) io.stderr.write(`${synced.cloned ? 'cloned' : 'updated'} ${redactUrl(dir)} at ${synced.commit.slice(0, 12)} into ${root}\n`);
      } else root = resolveIndexedRoot(io, dir, { store: flags.store, quiet: flags.json === true });
      const config = loadCliConfig(
        io,
        root,
        [
          { path: 'store', flag: '--store', value: flags.store },
          { path: 'embedder', flag: '--embedder', value: flags.embedder },
          { path: 'sources.indexSecrets', flag: '--include-secrets', value: flags.includeSecrets },
        ],
        flags.config,
      );
      const loci = createLoci({ root, config, env: io.env });
      const bar = createProgressBar(io.stderr, 'indexing');
      // How far a run got (files committed, unchanged or skipped), for a run stopped before its end.
      const progress = { done: 0, total: 0, reported: false };
      try {
        await withInterruptReport(
          io,
          (signal) =>
            loci.index({
              signal,
              onProgress: (event) => {
                bar.onIndexEvent(event);
                if ('done' in event && 'total' in event) Object.assign(progress, { done: event.done, total: event.total });
              },
            }),
          (summary) => {
            progress.reported = true;
            bar.finish();
            io.stdout.write(flags.json ? `${JSON.stringify(summary)}\n` : formatSummary(summary));
          },
        );
      } catch (error) {
        if (isLociError(error) && error.code === 'ABORTED' && !progress.reported) {
          bar.finish();
          io.stderr.write(
            progress.done === 0 ? 'Stopped before any file was indexed.\n' : `Stopped after ${progress.done} of ${progress.total} files; those are in the index, and the next run does the rest.\n`,
          );
        }
        throw error;
      } finally {
        bar.finish();
        await loci.close();
      }
    });
}

function formatSummary(summary: IndexSummary): string {
  const { files, chunks, embeddings } = summary;
  const lines = [
    `Indexed ${printable(summary.root)} in ${summary.seconds.toFixed(2)} s`,
    `  files:    ${files.indexed} indexed (${files.added} new, ${files.updated} updated), ${files.unchanged} unchanged, ${files.removed} removed; ${files.total} in the index`,
    `  chunks:   ${chunks.written} written; ${chunks.total} in the index`,
    `  skipped:  ${formatSkips(summary.skipped)}`,
    `  embedder: ${summary.embedder}${summary.embedder === 'none' ? ' (lexical only)' : ` (${embeddings.computed} embedded, ${embeddings.cached} from cache)`}`,
    `  store:    ${printable(summary.store)}`,
  ];
  for (const warning of summary.warnings) lines.push(`  warning:  ${printable(warning)}`);
  return `${lines.join('\n')}\n`;
}
