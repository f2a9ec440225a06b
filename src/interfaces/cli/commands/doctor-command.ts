import { basename } from 'node:path';
import type { Command } from 'commander';
import { LociError } from '../../../errors/index.js';
import { checkStore, type StoreReport } from '../../../store/doctor.js';
import { resolveStoreLocation } from '../../../store/location.js';
import { loadCliConfig, resolveIndexedRoot, type CliIo } from '../cli-context.js';
import { printable } from '../format.js';

export function registerDoctorCommand(program: Command, io: CliIo): void {
  program
    .command('doctor')
    .description('Check a store in full without changing it: database integrity, orphan rows, segment and vector-graph files, and file permissions.')
    .option('--root <dir>', 'the indexed folder (default: the current one)')
    .option('--store <path>', 'store folder or .db file (default <root>/.loci)')
    .option('--config <file>', 'config file (default <root>/loci.config.json)')
    .option('--json', 'print {"store","healthy","findings":[{"file","check","status","detail","fix"}]}')
    .action((flags: { root?: string; store?: string; config?: string; json?: boolean }) => {
      const root = resolveIndexedRoot(io, flags.root, { store: flags.store });
      const config = loadCliConfig(io, root, [{ path: 'store', flag: '--store', value: flags.store }], flags.config);
      const report = checkStore(resolveStoreLocation(root, config.store), root);
      io.stdout.write(flags.json ? `${JSON.stringify(report)}\n` : formatReport(report));
      const problems = report.findings.filter((finding) => finding.status === 'error');
      const first = problems[0];
      if (first) {
        // The exit code tells scripts; the report above says what each problem is.
        throw new LociError('STORE_CORRUPT', `${problems.length} problem${problems.length === 1 ? '' : 's'} found in the store at ${report.store} (${first.file}: ${first.detail}).`, {
          details: { store: report.store, problems: problems.length },
          ...(first.fix ? { hint: first.fix } : {}),
        });
      }
    });
}

function formatReport(report: StoreReport): string {
  const lines = [`Store ${printable(report.store)}: ${report.healthy ? 'healthy' : 'DAMAGED'}`];
  // Each check names the file it read: index.db and memory.db both get an integrity check.
  const fileWidth = Math.max(0, ...report.findings.map((finding) => basename(finding.file).length));
  for (const finding of report.findings) {
    lines.push(`  ${finding.status.padEnd(7)} ${basename(finding.file).padEnd(fileWidth)}  ${finding.check.padEnd(16)} ${printable(finding.detail)}`);
    if (finding.fix && finding.status !== 'ok') lines.push(`          fix: ${printable(finding.fix)}`);
  }
  return `${lines.join('\n')}\n`;
}
