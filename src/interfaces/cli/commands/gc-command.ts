import type { Command } from 'commander';
import { createLoci } from '../../../engine/create-loci.js';
import { loadCliConfig, resolveIndexedRoot, type CliIo } from '../cli-context.js';
import { formatBytes, printable } from '../format.js';

export function registerGcCommand(program: Command, io: CliIo): void {
  program
    .command('gc')
    .description('Drop cached vectors no indexed file uses (beyond cache.maxUnreferencedVectors), stale vector graphs and expired memories; embed memories stored while the embedder was down.')
    .option('--root <dir>', 'the indexed folder (default: the current one)')
    .option('--store <path>', 'store folder, .db file or postgres://user@host/db?namespace=name (default <root>/.loci)')
    .option('--config <file>', 'config file (default <root>/loci.config.json)')
    .option('--compact', 'also give the freed space back to the file system (VACUUM; needs the store to itself)')
    .option('--json', 'print {"removedVectors","keptUnreferenced","removedGraphFiles","expiredMemories","embeddedMemories","bytesBefore","bytesAfter","warnings"}')
    .action(async (flags: { root?: string; store?: string; config?: string; compact?: boolean; json?: boolean }) => {
      const root = resolveIndexedRoot(io, flags.root, { store: flags.store });
      const config = loadCliConfig(io, root, [{ path: 'store', flag: '--store', value: flags.store }], flags.config);
      const loci = createLoci({ root, config, env: io.env, inMemory: false });
      try {
        const summary = await loci.gc({ ...(flags.compact ? { compact: true } : {}) });
        io.stdout.write(
          flags.json
            ? `${JSON.stringify(summary)}\n`
            : `removed ${summary.removedVectors} unused vectors (kept ${summary.keptUnreferenced} for re-use), ${summary.removedGraphFiles.length} stale graph, segment or leftover temporary files, ${summary.expiredMemories} expired memories${summary.embeddedMemories ? `, embedded ${summary.embeddedMemories} memories stored without vectors` : ''}; store ${formatBytes(summary.bytesBefore)} → ${formatBytes(summary.bytesAfter)}\n`,
        );
        for (const warning of summary.warnings) io.stderr.write(`warning: ${printable(warning)}\n`);
      } finally {
        await loci.close();
      }
    });
}
