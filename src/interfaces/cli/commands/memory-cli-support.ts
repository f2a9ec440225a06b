import type { Command } from 'commander';
import { createLoci, type Loci } from '../../../engine/create-loci.js';
import type { Memory } from '../../../memory/memory.js';
import { loadCliConfig, resolveIndexedRoot, type CliIo } from '../cli-context.js';

// What every `loci memory …` and `loci knowledge …` command shares: flags and the engine.

export interface CommonFlags {
  root?: string;
  store?: string;
  config?: string;
  json?: boolean;
  namespace?: string[];
}

export const collect = (value: string, previous: string[] = []) => [...previous, value];

export function common(command: Command): Command {
  return command
    .option('--root <dir>', 'project folder whose store holds the memory (default: the current one)')
    .option('--store <path>', 'store folder or postgres:// URL (default <root>/.loci); memory lives in its memory.db, or the <namespace>_memory namespace')
    .option('--config <file>', 'config file (default <root>/loci.config.json)')
    .option('--json', 'print JSON');
}

export async function withMemory<T>(io: CliIo, flags: CommonFlags, action: (memory: Memory, loci: Loci) => Promise<T>): Promise<T> {
  const root = resolveIndexedRoot(io, flags.root, { store: flags.store });
  const config = loadCliConfig(io, root, [{ path: 'store', flag: '--store', value: flags.store }], flags.config);
  const loci = createLoci({ root, config, env: io.env, inMemory: false });
  try {
    return await action(await loci.memory(), loci);
  } finally {
    await loci.close();
  }
}
