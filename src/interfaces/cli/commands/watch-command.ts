import { LociError } from '../../../errors/index.js';
import type { Command } from 'commander';
import { createLoci, type WatchEvent } from '../../../engine/create-loci.js';
import { loadCliConfig, resolveRoot, type CliIo } from '../cli-context.js';
import { printable } from '../format.js';

export function registerWatchCommand(program: Command, io: CliIo): void {
  program
    .command('watch')
    .description('Index a folder, then keep it indexed: changed files are re-indexed as they are saved. Ctrl-C stops.')
    .argument('[dir]', 'folder to watch (default: the current one)')
    .option('--store <path>', 'store folder, .db file or postgres://user@host/db?namespace=name (default <dir>/.loci)')
    .option('--embedder <id>', 'embedder id, or "none" for a lexical-only index')
    .option('--debounce <ms>', 'quiet time before a batch of saves is indexed', '50')
    .option('--config <file>', 'config file (default <dir>/loci.config.json)')
    .option('--json', 'print each event as a JSON line')
    .action(async (dir: string | undefined, flags: { store?: string; embedder?: string; debounce: string; config?: string; json?: boolean }) => {
      const root = resolveRoot(io, dir, { mustExist: true });
      const config = loadCliConfig(
        io,
        root,
        [
          { path: 'store', flag: '--store', value: flags.store },
          { path: 'embedder', flag: '--embedder', value: flags.embedder },
        ],
        flags.config,
      );
      const debounceMs = Number(flags.debounce);
      // A minute is far past any save's burst; longer, and saves would seem never to be indexed.
      if (!/^\d+$/.test(flags.debounce.trim()) || debounceMs > 60_000) {
        throw new LociError('INVALID_ARGUMENT', `--debounce takes whole milliseconds from 0 to 60000; got "${flags.debounce.slice(0, 40)}".`, { hint: 'E.g. --debounce 200.' });
      }
      const loci = createLoci({ root, config, env: io.env, inMemory: false });
      const print = (event: WatchEvent) => {
        if (flags.json) {
          io.stdout.write(`${JSON.stringify(event.type === 'watch-error' ? { type: event.type, message: event.error.message } : event)}\n`);
          return;
        }
        if (event.type === 'watch-ready') io.stdout.write(`watching ${root}: ${event.summary.files.total} files indexed (${event.summary.files.indexed} updated now)\n`);
        else if (event.type === 'watch-indexed') {
          const { files } = event.summary;
          io.stdout.write(
            `${new Date().toLocaleTimeString()} ${files.indexed} indexed, ${files.removed} removed in ${event.milliseconds} ms: ${event.paths.slice(0, 5).map(printable).join(', ')}${event.paths.length > 5 ? ', …' : ''}\n`,
          );
        } else io.stderr.write(`loci watch: ${printable(event.error.message)}\n`);
      };
      // Listened for from the start: a Ctrl-C during the first index stops it after the file in flight (the next run resumes).
      const stopped = new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      try {
        const starting = loci.watch({ debounceMs, onEvent: print });
        const watcher = await Promise.race([starting, stopped.then(() => undefined)]);
        if (!watcher) {
          io.stderr.write('Stopping the first index after the current file; the next run or watch resumes it.\n');
          await loci.close();
          await starting.then(
            (late) => late.close(),
            () => undefined,
          );
          return;
        }
        await stopped;
        await watcher.close();
      } finally {
        await loci.close();
      }
    });
}
