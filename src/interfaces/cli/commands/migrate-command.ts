import type { Command } from 'commander';
import { LociError } from '../../../errors/index.js';
import { migrateStores, type CopySummary } from '../../../store/migrate.js';
import { describeLocation, resolveStoreLocation } from '../../../store/location.js';
import type { CliIo } from '../cli-context.js';
import { withInterruptReport } from '../interrupt.js';
import { createProgressBar } from '../progress-bar.js';

export function registerMigrateCommand(program: Command, io: CliIo): void {
  program
    .command('migrate')
    .description('Copy an index and its memory from one store to another (SQLite folder or .db ↔ postgres:// URL), without re-embedding. Re-running resumes.')
    .requiredOption('--from <store>', 'source: a store folder (e.g. ./repo/.loci), a .db file, or postgres://user@host/db?namespace=name')
    .requiredOption('--to <store>', 'target, in the same forms; created if missing')
    .option('--json', 'print {"from","to","index":{...},"memory"?:{...}} with files, skipped, chunks, vectors, state, embedderId')
    .action(async (flags: { from: string; to: string; json?: boolean }) => {
      const from = resolveStoreLocation(io.cwd, flags.from);
      const to = resolveStoreLocation(io.cwd, flags.to);
      if (describeLocation(from) === describeLocation(to)) {
        throw new LociError('INVALID_ARGUMENT', '--from and --to name the same store.', { hint: 'Pass a different target folder, file or namespace.' });
      }
      const bar = createProgressBar(io.stderr, 'copying');
      try {
        await withInterruptReport(
          io,
          (signal) => migrateStores(from, to, { signal, onProgress: (event) => bar.update(event.files, event.totalFiles, event.part) }),
          (summary) => {
            bar.finish();
            if (flags.json) io.stdout.write(`${JSON.stringify(summary)}\n`);
            else {
              const line = (label: string, part: CopySummary) =>
                `  ${label}: ${part.files} files copied (${part.skipped} already there), ${part.chunks} chunks, ${part.vectors} vectors (${part.embedderId}), ${part.state} state values\n`;
              io.stdout.write(`Copied ${summary.from} → ${summary.to}\n${line('index ', summary.index)}${summary.memory ? line('memory', summary.memory) : '  memory: none kept at the source\n'}`);
            }
          },
        );
      } finally {
        bar.finish();
      }
    });
}
