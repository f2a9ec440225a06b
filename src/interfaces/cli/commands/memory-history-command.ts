import type { Command } from 'commander';
import { LociError } from '../../../errors/index.js';
import { publicHistory } from '../../../memory/public-record.js';
import type { CliIo } from '../cli-context.js';
import { printable } from '../format.js';
import { common, withMemory, type CommonFlags } from './memory-cli-support.js';

/** `loci memory history <conversation>`: the turns a prompt would carry, within a token budget. */
export function registerHistoryCommand(memory: Command, io: CliIo): void {
  common(memory.command('history'))
    .description("A conversation's turns within a token budget: the latest first, then older ones relevant to --query; printed in conversation order.")
    .argument('<conversation>', 'the conversation id')
    .option('--query <text>', 'keep older turns relevant to this after the latest ones')
    .option('--max-tokens <n>', 'token budget', '2000')
    .option('--namespace <ns>', 'where the turns are (default conversations/<id>)')
    .action(async (conversationId: string, flags: Omit<CommonFlags, 'namespace'> & { query?: string; maxTokens: string; namespace?: string }) => {
      const tokenBudget = Number(flags.maxTokens);
      if (!Number.isInteger(tokenBudget) || tokenBudget < 1) throw new LociError('INVALID_ARGUMENT', `--max-tokens must be a positive integer; got "${flags.maxTokens}".`);
      const { namespace, ...rest } = flags;
      const history = await withMemory(io, rest, (store) => store.history({ conversationId, tokenBudget, ...(flags.query ? { query: flags.query } : {}), ...(namespace ? { namespace } : {}) }));
      const wire = publicHistory(history);
      if (flags.json) {
        io.stdout.write(`${JSON.stringify({ conversationId, ...wire })}\n`);
        return;
      }
      if (wire.messages.length === 0) io.stdout.write(`No turns in conversation ${printable(conversationId)}.\n`);
      for (const message of wire.messages) io.stdout.write(`${message.role === 'user' ? 'User' : 'Assistant'}: ${printable(message.content)}\n`);
    });
}
