import { Command, CommanderError } from 'commander';
import { fromFileSystemError, isLociError } from '../../errors/index.js';
import { LOCI_VERSION } from '../../version.js';
import type { CliIo } from './cli-context.js';
import { registerEvalCommand } from './commands/eval-command.js';
import { registerGcCommand } from './commands/gc-command.js';
import { registerMigrateCommand } from './commands/migrate-command.js';
import { registerWatchCommand } from './commands/watch-command.js';
import { registerIndexCommand } from './commands/index-command.js';
import { registerContextCommands } from './commands/context-command.js';
import { registerKnowledgeCommand } from './commands/knowledge-command.js';
import { registerMemoryCommand } from './commands/memory-command.js';
import { registerServeCommands } from './commands/serve-command.js';
import { registerSearchCommand } from './commands/search-command.js';
import { registerStatusCommand } from './commands/status-command.js';
import { registerTrustCommand } from './commands/trust-command.js';
import { exitCodeFor, exitCodes } from './exit-codes.js';
import { printable } from './format.js';
import { registerDoctorCommand } from './commands/doctor-command.js';

/** Runs the CLI against the given streams and returns the exit code (no process.exit). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const program = new Command('loci')
    .description('Local-first retrieval and memory for LLM agents.')
    .version(LOCI_VERSION, '-v, --version')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      // Usage errors quote the arguments (which may be pasted file names): shown, not obeyed.
      writeErr: (text) => io.stderr.write(text.split('\n').map(printable).join('\n')),
    });
  registerIndexCommand(program, io);
  registerSearchCommand(program, io);
  registerStatusCommand(program, io);
  registerGcCommand(program, io);
  registerMigrateCommand(program, io);
  registerWatchCommand(program, io);
  registerEvalCommand(program, io);
  registerMemoryCommand(program, io);
  registerKnowledgeCommand(program, io);
  registerContextCommands(program, io);
  registerServeCommands(program, io);
  registerTrustCommand(program, io);
  registerDoctorCommand(program, io);
  const override = (command: Command): void => {
    for (const child of command.commands) {
      child.exitOverride();
      override(child);
    }
  };
  override(program);

  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCodes.ok;
  } catch (thrown) {
    // A file-system error that escaped its layer (EACCES, EROFS, ENOSPC, EISDIR, …) is still a
    // one-line user error, never a stack trace.
    const error = fromFileSystemError(thrown);
    if (error instanceof CommanderError) {
      // Help and version exit "successfully"; commander already printed its message.
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return exitCodes.ok;
      return exitCodes.usage;
    }
    if (isLociError(error)) {
      // Messages name files from the indexed folder: their control characters are shown, not obeyed.
      io.stderr.write(`loci: ${printable(error.describe())}\n`);
      if (io.env.LOCI_DEBUG && error.cause) io.stderr.write(`${String((error.cause as Error).stack ?? error.cause)}\n`);
      return exitCodeFor(error.category);
    }
    io.stderr.write(
      `loci: unexpected error: ${String((error as Error).stack ?? error)
        .split('\n')
        .map(printable)
        .join('\n')}\n`,
    );
    return exitCodes.internal;
  }
}
