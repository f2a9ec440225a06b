import type { Command } from 'commander';
import { createLoci } from '../../../engine/create-loci.js';
import type { IndexStatus } from '../../../engine/status-types.js';
import { loadCliConfig, resolveIndexedRoot, type CliIo } from '../cli-context.js';
import { formatBytes, formatSkips, printable } from '../format.js';

export function registerStatusCommand(program: Command, io: CliIo): void {
  program
    .command('status')
    .description('Show what an index holds and which files changed since it was built.')
    .option('--root <dir>', 'the indexed folder (default: the current one)')
    .option('--store <path>', 'store folder, .db file or postgres://user@host/db?namespace=name (default <root>/.loci)')
    .option('--config <file>', 'config file (default <root>/loci.config.json)')
    .option('--json', 'print the status as JSON')
    .action(async (flags: { root?: string; store?: string; config?: string; json?: boolean }) => {
      const root = resolveIndexedRoot(io, flags.root, { store: flags.store });
      const config = loadCliConfig(io, root, [{ path: 'store', flag: '--store', value: flags.store }], flags.config);
      const loci = createLoci({ root, config, env: io.env });
      try {
        const status = await loci.status();
        io.stdout.write(flags.json ? `${JSON.stringify(status)}\n` : formatStatus(status));
      } finally {
        await loci.close();
      }
    });
}

const LISTED = 10;

function embedderLine(status: IndexStatus): string {
  if (status.requestedEmbedder) return `${printable(status.requestedEmbedder)} (requested; not set up yet, no vectors: run \`loci index\` again once it is reachable)`;
  return `${status.embedder}${status.embedder === 'none' ? ' (lexical only)' : ` (${status.vectors} vectors)`}`;
}

function formatStatus(status: IndexStatus): string {
  const lines = [
    `Index of ${printable(status.root)}`,
    `  store:    ${printable(status.store)} (${formatBytes(status.bytesOnDisk)}, schema v${status.schemaVersion})`,
    `  files:    ${status.files}`,
    `  chunks:   ${status.chunks}`,
    `  embedder: ${embedderLine(status)}`,
  ];
  if (status.running) {
    lines.push(`  running:  an index run since ${new Date(status.running.since).toISOString()} (pid ${status.running.pid} on ${printable(status.running.host)})`);
  }
  if (status.interrupted) {
    const { pid, host, since } = status.interrupted;
    lines.push(
      `  interrupted: the index run of ${new Date(since).toISOString()} (pid ${pid} on ${printable(host)}) ended without finishing (killed or crashed); what it indexed is kept, and \`loci index\` does the rest`,
    );
  }
  if (status.lastFailure) {
    lines.push(`  failed:   ${new Date(status.lastFailure.finishedAt).toISOString()}, ${status.lastFailure.code}: ${printable(status.lastFailure.message)}`);
  }
  if (status.lastRun) {
    lines.push(`  last run: ${new Date(status.lastRun.finishedAt).toISOString()}, ${status.lastRun.seconds.toFixed(2)} s`);
    lines.push(`  skipped:  ${formatSkips(status.lastRun.skipped)}`);
  }
  for (const warning of status.warnings) lines.push(`  warning:  ${printable(warning)}`);
  if (status.content === 'documents') lines.push('  content:  documents (indexDocuments), not a folder: `loci index` refuses this store');
  const changes = status.changes;
  if (changes) {
    const total = changes.modified.length + changes.added.length + changes.deleted.length + changes.excluded.length;
    lines.push(
      total === 0
        ? '  changes:  none since the last index'
        : `  changes:  ${changes.modified.length} stale (size or time changed), ${changes.added.length} new, ${changes.deleted.length} missing (deleted)${changes.excluded.length > 0 ? `, ${changes.excluded.length} now excluded (ignored or skipped)` : ''} (run \`loci index\` to update)`,
    );
    for (const [label, paths] of [
      ['stale', changes.modified],
      ['new', changes.added],
      ['missing', changes.deleted],
      ['excluded', changes.excluded],
    ] as const) {
      for (const path of paths.slice(0, LISTED)) lines.push(`    ${label.padEnd(8)} ${printable(path)}`);
      if (paths.length > LISTED) lines.push(`    … and ${paths.length - LISTED} more ${label}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
