import { Command, CommanderError } from 'commander';
import { errorCodes, fromFileSystemError, isLociError } from '../../errors/index.js';
import { LOCI_VERSION } from '../../version.js';
import type { CliIo } from './cli-context.js';
import { exitCodeFor, exitCodes } from './exit-codes.js';
import { printable } from './format.js';

type Register = (program: Command, io: CliIo) => void;

/**
 * Each command's module, loaded only when that command runs: `loci --version` and a one-shot
 * command do not pay for the modules of every other one (the engine, the server, MCP, eval).
 * In the order `loci --help` lists them.
 */
const COMMANDS: Array<[names: string[], load: () => Promise<Register>]> = [
  [['index'], async () => (await import('./commands/index-command.js')).registerIndexCommand],
  [['search'], async () => (await import('./commands/search-command.js')).registerSearchCommand],
  [['status'], async () => (await import('./commands/status-command.js')).registerStatusCommand],
  [['gc'], async () => (await import('./commands/gc-command.js')).registerGcCommand],
  [['migrate'], async () => (await import('./commands/migrate-command.js')).registerMigrateCommand],
  [['watch'], async () => (await import('./commands/watch-command.js')).registerWatchCommand],
  [['eval'], async () => (await import('./commands/eval-command.js')).registerEvalCommand],
  [['memory'], async () => (await import('./commands/memory-command.js')).registerMemoryCommand],
  [['knowledge'], async () => (await import('./commands/knowledge-command.js')).registerKnowledgeCommand],
  [['context', 'ask'], async () => (await import('./commands/context-command.js')).registerContextCommands],
  [['serve', 'mcp'], async () => (await import('./commands/serve-command.js')).registerServeCommands],
  [['trust'], async () => (await import('./commands/trust-command.js')).registerTrustCommand],
  [['doctor'], async () => (await import('./commands/doctor-command.js')).registerDoctorCommand],
];

/** The commands to load for these arguments: none for the version, the named one, or all (help, a typo). */
export function commandsFor(argv: readonly string[]): Array<() => Promise<Register>> {
  const first = argv.find((argument) => !argument.startsWith('-'));
  if (first === undefined && argv.some((argument) => argument === '-v' || argument === '--version')) return [];
  const named = first === undefined ? undefined : COMMANDS.find(([names]) => names.includes(first));
  return named ? [named[1]] : COMMANDS.map(([, load]) => load);
}

/** Whether the command asks for JSON (`--json` before any `--`): then its errors are JSON too. */
export function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/**
 * An error as one JSON line, the HTTP API's `{"error":{code,message,hint}}` plus the exit code
 * and the error's details: a program that asked for --json reads its failures the same way.
 */
function jsonError(error: { code: string; message: string; hint?: string; details?: Record<string, unknown> }, exitCode: number): string {
  const body = { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}), exitCode };
  try {
    return `${JSON.stringify({ error: { ...body, ...(error.details && Object.keys(error.details).length > 0 ? { details: error.details } : {}) } })}\n`;
  } catch {
    // Details that do not serialize (a cycle, a BigInt) are left out rather than lose the error.
    return `${JSON.stringify({ error: body })}\n`;
  }
}

/** Runs the CLI against the given streams and returns the exit code (no process.exit). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const json = wantsJson(argv);
  // Under --json commander's usage message is kept for the JSON error instead of printed.
  let usageMessage = '';
  const program = new Command('loci')
    .description('Local-first retrieval and memory for LLM agents.')
    .version(LOCI_VERSION, '-v, --version')
    .showSuggestionAfterError(true)
    .showHelpAfterError('(loci --help lists the commands; loci <command> --help, their options)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      // Usage errors quote the arguments (which may be pasted file names): shown, not obeyed.
      writeErr: (text) => {
        if (!json) io.stderr.write(text.split('\n').map(printable).join('\n'));
      },
      // A usage error reads like every other loci error.
      outputError: (text, write) => {
        const message = text.startsWith('error: ') ? text.slice('error: '.length) : text;
        if (json) usageMessage += message;
        else write(`loci: ${message}`);
      },
    });
  for (const register of await Promise.all(commandsFor(argv).map((load) => load()))) register(program, io);
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
      if (json) {
        const message = (usageMessage || error.message.replace(/^error: /, '')).trim();
        io.stderr.write(
          jsonError({ code: 'INVALID_ARGUMENT', message, hint: 'loci --help lists the commands; loci <command> --help, their options.', details: { usage: error.code } }, exitCodes.usage),
        );
      }
      return exitCodes.usage;
    }
    if (isLociError(error) && json) {
      io.stderr.write(jsonError(error, exitCodeFor(error.category)));
      if (io.env.LOCI_DEBUG && error.cause) io.stderr.write(`${String((error.cause as Error).stack ?? error.cause)}\n`);
      return exitCodeFor(error.category);
    }
    if (isLociError(error)) {
      // Messages name files from the indexed folder: their control characters are shown, not obeyed.
      const problems = error.details.problems;
      if (error.code === 'CONFIG_INVALID' && Array.isArray(problems)) {
        // One line per problem, each shown (not obeyed) like any other text from outside.
        const lines = (problems as Array<{ path: string; origin: string; message: string }>).map((problem) => `  ${printable(`${problem.path} (from ${problem.origin}): ${problem.message}`)}`);
        io.stderr.write(`loci: Invalid configuration, ${lines.length} ${lines.length === 1 ? 'problem' : 'problems'}:\n${lines.join('\n')}\n${printable(error.hint)}\n`);
      } else if (error.code === 'CONFIG_UNTRUSTED' && Array.isArray(error.details.refused)) {
        // One line per refused key (the message's own newlines would print as \n).
        const file = String(error.details.file);
        const refused = error.details.refused as Array<{ path: string; reason: string; value?: string }>;
        const lines = refused.map((key) => `  ${printable(`${key.path}${key.value === undefined ? '' : ` = ${key.value}`} (from ${file}): ${key.reason}`)}`);
        io.stderr.write(`loci: The folder's own config sets ${lines.length} key(s) that only your own configuration may set:\n${lines.join('\n')}\n${printable(error.hint)}\n`);
      } else io.stderr.write(`loci: ${printable(error.describe())}\n`);
      if (io.env.LOCI_DEBUG && error.cause) io.stderr.write(`${String((error.cause as Error).stack ?? error.cause)}\n`);
      return exitCodeFor(error.category);
    }
    if (json) {
      const stack = io.env.LOCI_DEBUG ? { stack: String((error as Error).stack ?? error) } : undefined;
      io.stderr.write(jsonError({ code: 'INTERNAL', message: `Unexpected error: ${String((error as Error).message ?? error)}`, hint: errorCodes.INTERNAL.hint, details: stack }, exitCodes.internal));
      return exitCodes.internal;
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
