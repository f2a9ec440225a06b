import { readFile, writeFile } from 'node:fs/promises';
import { meantChoice } from '../../../errors/meant-key.js';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { LociError } from '../../../errors/index.js';
import { exportFormats, formatExport, type ExportFormat } from '../../../memory/export-formats.js';
import { parseTime } from '../../../memory/parse-time.js';
import { checkTime } from '../../../memory/time-range.js';
import { interactionOutcomes, memoryKinds, type InteractionOutcome, type MemoryFilter, type MemoryKind } from '../../../memory/spec.js';
import type { RecordInput } from '../../../memory/record-input.js';
import type { CliIo } from '../cli-context.js';
import { printable } from '../format.js';
import { collect, common, withMemory, type CommonFlags } from './memory-cli-support.js';
import { formatHits, formatRecord, formatRecords, formatWarnings, publicHit, publicRecord } from './memory-format.js';
import { registerHistoryCommand } from './memory-history-command.js';

export function registerMemoryCommand(program: Command, io: CliIo): void {
  const memory = program.command('memory').description('Agent memory: add, search, list, get, update, forget, export and import records.');

  common(memory.command('add'))
    .description('Add a record (a note by default) to a namespace.')
    .argument('[text...]', 'the text to remember (for an interaction or a turn: the prompt, unless --prompt is given)')
    .option('--namespace <ns>', 'namespace, e.g. agent/boss or user/42/session/7 (a turn defaults to conversations/<id>)', collect)
    .option('--kind <kind>', `one of ${memoryKinds.join(', ')}`, 'note')
    .option('--id <id>', 'record id (default: generated); must be new to the store (change a record with `loci memory update`)')
    .option('--time <time>', 'when it happened: ISO date, epoch ms or "1:56 pm on 8 May, 2023"')
    .option('--ttl <duration>', 'forget after this long, e.g. 90m, 12h, 30d')
    .option('--metadata <json>', 'a JSON object kept with the record')
    .option('--prompt <text>', 'interactions: the command prompt; turns: the user query (instead of the text)')
    .option('--outcome <outcome>', `interactions: ${interactionOutcomes.join(', ')}`)
    .option('--response <text>', 'interactions: the response; turns: the assistant reply')
    .option('--feedback <text>', 'interactions: feedback or the error message')
    .option('--multi-step', 'interactions: part of a multi-step plan')
    .option('--conversation <id>', 'turns: the conversation id (namespace default conversations/<id>)')
    .option('--no-dedupe', 'keep a near-identical note as its own record')
    .action(async (words: string[], flags: CommonFlags & AddFlags) => {
      const input = addInput(words.join(' '), flags);
      const record = await withMemory(io, flags, (store) => store.addRecord(input, { dedupe: flags.dedupe !== false }));
      io.stderr.write(formatWarnings([record])); // e.g. stored without a vector while the embedder is down
      io.stdout.write(flags.json ? `${JSON.stringify({ record: publicRecord(record) })}\n` : `${record.mergedCount > 0 ? 'merged into' : 'added'} ${record.namespace}/${record.id}\n`);
    });

  common(memory.command('search'))
    .description('Recall the records most relevant to a query (BM25 + vector + recency).')
    .argument('<query...>', 'what to recall')
    .option('--namespace <ns>', 'search this namespace and those under it (repeatable; default all)', collect)
    .option('--top-k <n>', 'number of results, 1 to 1000 (default 5, config memory.topK)')
    .option('--kind <kind>', 'only this kind (repeatable)', collect)
    .option('--outcome <outcome>', 'only interactions with this outcome')
    .option('--since <time>', 'only records at or after this time')
    .option('--min-similarity <x>', 'only records at least this similar (cosine)')
    .option('--mode <mode>', 'hybrid, lexical or vector')
    .option('--explain', "show how each signal made each result's score")
    .action(async (words: string[], flags: CommonFlags & SearchFlags) => {
      const query = words.join(' ');
      if (query.trim() === '') throw new LociError('QUERY_EMPTY', 'The recall query is empty.');
      const { hits, warnings, degraded, degradedParts } = await withMemory(io, flags, (store) =>
        store.recallResponse(query, {
          ...(flags.namespace ? { namespaces: flags.namespace } : {}),
          ...(flags.topK !== undefined ? { topK: positiveInt(flags.topK, '--top-k') } : {}),
          ...(flags.kind ? { kinds: kinds(flags.kind) } : {}),
          ...(flags.outcome ? { outcome: outcome(flags.outcome) } : {}),
          ...(flags.since ? { since: time(flags.since, '--since') } : {}),
          ...(flags.minSimilarity !== undefined ? { minSimilarity: finite(flags.minSimilarity, '--min-similarity') } : {}),
          ...(flags.mode ? { mode: mode(flags.mode) } : {}),
          ...(flags.explain ? { explain: true } : {}),
        }),
      );
      io.stderr.write(formatWarnings(hits.map((hit) => hit.record)) + warnings.map((warning) => `warning: ${printable(warning)}\n`).join(''));
      io.stdout.write(flags.json ? `${JSON.stringify({ results: hits.map(publicHit), warnings, degraded, degradedParts })}\n` : formatHits(hits));
    });

  common(memory.command('list'))
    .description('List records (oldest first), or the namespaces with --namespaces.')
    .option('--namespace <ns>', 'only this namespace and those under it (repeatable)', collect)
    .option('--kind <kind>', 'only this kind (repeatable)', collect)
    .option('--limit <n>', 'at most this many records')
    .option('--namespaces', 'list namespaces with their record counts instead')
    .action(async (flags: CommonFlags & { kind?: string[]; limit?: string; namespaces?: boolean }) => {
      await withMemory(io, flags, async (store) => {
        if (flags.namespaces) {
          const namespaces = await store.namespaces();
          io.stdout.write(
            flags.json ? `${JSON.stringify({ namespaces })}\n` : namespaces.map((entry) => `${entry.namespace}  ${entry.records}`).join('\n') + (namespaces.length ? '\n' : 'No records.\n'),
          );
          return;
        }
        const records = await store.list({
          ...(flags.namespace ? { namespaces: flags.namespace } : {}),
          ...(flags.kind ? { kinds: kinds(flags.kind) } : {}),
          ...(flags.limit !== undefined ? { limit: positiveInt(flags.limit, '--limit') } : {}),
        });
        io.stderr.write(formatWarnings(records));
        io.stdout.write(flags.json ? `${JSON.stringify({ records: records.map(publicRecord) })}\n` : formatRecords(records));
      });
    });

  common(memory.command('get'))
    .description('Show one record in full, with the texts `update` replaced (versions).')
    .argument('<id>', 'record id, alone or as the namespace/id that list and search print')
    .option('--namespace <ns>', 'the namespace that holds it (needed only when an older store holds the id twice)', collect)
    .action(async (given: string, flags: CommonFlags) => {
      const { id, namespace } = qualifiedId(given, oneNamespace(flags.namespace));
      const record = await withMemory(io, flags, (store) => store.get(id, namespace));
      if (!record) throw new LociError('RECORD_NOT_FOUND', `No memory record with id ${id}${namespace ? ` in namespace ${namespace}` : ''}.`);
      io.stderr.write(formatWarnings([record]));
      io.stdout.write(flags.json ? `${JSON.stringify({ record: publicRecord(record) })}\n` : formatRecord(record));
    });

  common(memory.command('update'))
    .description('Change a record: its text (the old one is kept in versions), metadata or expiry.')
    .argument('<id>', 'record id, alone or as the namespace/id that list and search print')
    .argument('[text...]', 'the new text')
    .option('--namespace <ns>', 'the namespace that holds it (needed only when an older store holds the id twice)', collect)
    .option('--metadata <json>', 'a JSON object merged into its metadata')
    .option('--ttl <duration>', 'forget after this long from now, e.g. 90m, 12h, 30d')
    .option('--no-ttl', 'never expire')
    .action(async (given: string, words: string[], flags: CommonFlags & { metadata?: string; ttl?: string | false }) => {
      const { id, namespace } = qualifiedId(given, oneNamespace(flags.namespace));
      const text = words.join(' ');
      const patch = {
        ...(namespace ? { namespace } : {}),
        ...(text.trim() !== '' ? { text } : {}),
        ...(flags.metadata ? { metadata: jsonObject(flags.metadata, '--metadata') } : {}),
        ...(flags.ttl === false ? { ttlMs: null } : flags.ttl ? { ttlMs: duration(flags.ttl) } : {}),
      };
      if (Object.keys(patch).every((key) => key === 'namespace')) throw new LociError('INVALID_ARGUMENT', 'Nothing to update: give a new text, --metadata, --ttl or --no-ttl.');
      const record = await withMemory(io, flags, (store) => store.update(id, patch));
      io.stdout.write(
        flags.json
          ? `${JSON.stringify({ record: publicRecord(record) })}\n`
          : `updated ${record.namespace}/${record.id}${record.versions?.length ? ` (${record.versions.length} earlier version${record.versions.length === 1 ? '' : 's'} kept)` : ''}\n`,
      );
    });

  common(memory.command('forget'))
    .description('Delete records by id or by filter.')
    .argument('[ids...]', 'record ids, alone or as the namespace/id that list and search print')
    .option('--namespace <ns>', 'only in this namespace and those under it (repeatable)', collect)
    .option('--kind <kind>', 'only this kind (repeatable)', collect)
    .option('--before <time>', 'only records older than this time')
    .option('--outcome <outcome>', 'only interactions with this outcome')
    .option('--expired', 'purge records past their TTL (nothing else)')
    .option('--all', 'every record (needed when no other filter is given)')
    .action(async (given: string[], flags: CommonFlags & { kind?: string[]; before?: string; outcome?: string; expired?: boolean; all?: boolean }) => {
      const qualified = given.map((value) => qualifiedId(value, undefined));
      const ids = qualified.map(({ id }) => id);
      const forgotten = await withMemory(io, flags, async (store) => {
        if (flags.expired) return store.gc();
        // An id given as namespace/id is forgotten only from that namespace: a wrong one forgets nothing.
        for (const { id, namespace } of qualified) {
          if (namespace && !(await store.get(id, namespace))) throw new LociError('RECORD_NOT_FOUND', `No memory record with id ${id} in namespace ${namespace}; nothing was forgotten.`);
        }
        const filter: MemoryFilter & { all?: boolean } = {
          ...(ids.length > 0 ? { ids } : {}),
          ...(flags.namespace ? { namespaces: flags.namespace } : {}),
          ...(flags.kind ? { kinds: kinds(flags.kind) } : {}),
          ...(flags.before ? { before: time(flags.before, '--before') } : {}),
          ...(flags.outcome ? { outcome: outcome(flags.outcome) } : {}),
          ...(flags.all ? { all: true } : {}),
        };
        return store.forget(filter);
      });
      if (ids.length > 0 && forgotten === 0) throw new LociError('RECORD_NOT_FOUND', `No memory record with id ${ids.join(', ')}.`);
      io.stdout.write(flags.json ? `${JSON.stringify({ forgotten })}\n` : `forgot ${forgotten} record${forgotten === 1 ? '' : 's'}\n`);
    });

  common(memory.command('export'))
    .description('Export records (with their vectors) as JSON.')
    .option('--namespace <ns>', 'only this namespace and those under it (repeatable)', collect)
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--format <format>', `loci (default), unity (memory_log.json) or go-agent ({name}_vector_store.json); \`loci memory import\` reads all three back`, 'loci')
    .action(async (flags: CommonFlags & { out?: string; format: string }) => {
      if (!(exportFormats as readonly string[]).includes(flags.format))
        throw new LociError('INVALID_ARGUMENT', `--format must be one of ${exportFormats.join(', ')}; got "${flags.format}".${meantChoice(flags.format, exportFormats)}`);
      const data = await withMemory(io, flags, (store) => store.export(flags.namespace ? { namespaces: flags.namespace, includeExpired: false } : {}));
      const formatted = formatExport(data, flags.format as ExportFormat);
      for (const warning of formatted.warnings) io.stderr.write(`warning: ${warning}\n`);
      const text = `${JSON.stringify(formatted.data)}\n`;
      if (flags.out) {
        await writeFile(resolve(io.cwd, flags.out), text);
        io.stderr.write(`exported ${formatted.records} records to ${flags.out} (${flags.format})\n`);
      } else io.stdout.write(text);
    });

  registerHistoryCommand(memory, io);

  common(memory.command('import'))
    .description('Import a loci export, a Go agent {name}_vector_store.json or a Unity memory_log.json.')
    .argument('<file>', 'the JSON file')
    .option('--namespace <ns>', 'namespace for files that carry none (Go, Unity)', collect)
    .option('--vectors-from <embedder>', "the embedder id that made a foreign file's vectors; kept only if it is the current one")
    .option('--no-overwrite', 'skip records whose id already exists')
    .action(async (file: string, flags: CommonFlags & { vectorsFrom?: string; overwrite?: boolean }) => {
      const path = resolve(io.cwd, file);
      let data: unknown;
      try {
        data = JSON.parse(await readFile(path, 'utf8'));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT')
          throw new LociError('FILE_NOT_FOUND', `Import file not found: ${path}.`, { hint: 'Pass the file that loci memory export wrote (a relative path is taken from the current folder).' });
        throw new LociError('IMPORT_INVALID', `Cannot import ${path}: it is not valid JSON (${(error as Error).message}).`);
      }
      if (flags.namespace && flags.namespace.length > 1) throw new LociError('INVALID_ARGUMENT', 'import takes one --namespace.');
      const summary = await withMemory(io, flags, (store) =>
        store.import(data, {
          ...(flags.namespace?.[0] ? { namespace: flags.namespace[0] } : {}),
          ...(flags.vectorsFrom ? { vectorsFrom: flags.vectorsFrom } : {}),
          overwrite: flags.overwrite !== false,
        }),
      );
      io.stdout.write(
        flags.json
          ? `${JSON.stringify(summary)}\n`
          : `imported ${summary.imported} records (${summary.format}); vectors kept ${summary.keptVectors}, re-embedded ${summary.reembedded}${summary.skippedExisting ? `, skipped ${summary.skippedExisting} existing` : ''}\n`,
      );
    });
}

interface AddFlags {
  kind: string;
  id?: string;
  time?: string;
  ttl?: string;
  metadata?: string;
  outcome?: string;
  response?: string;
  feedback?: string;
  conversation?: string;
  prompt?: string;
  multiStep?: boolean;
  dedupe?: boolean;
}

interface SearchFlags {
  topK?: string;
  kind?: string[];
  outcome?: string;
  since?: string;
  minSimilarity?: string;
  mode?: string;
  explain?: boolean;
}

/** The flags as the one record model every door accepts (toMemoryInput checks it, as over HTTP and MCP). */
function addInput(text: string, flags: CommonFlags & AddFlags): RecordInput {
  if (flags.namespace && flags.namespace.length > 1) throw new LociError('INVALID_ARGUMENT', 'add takes one --namespace.');
  const kind = kinds([flags.kind])[0] as MemoryKind;
  if (text.trim() === '' && flags.prompt === undefined)
    throw new LociError('INVALID_ARGUMENT', 'Nothing to remember: the text is empty.', { hint: 'Pass the text, or --prompt for an interaction or a turn.' });
  if (kind !== 'interaction' && kind !== 'turn' && (flags.outcome || flags.response !== undefined || flags.conversation || flags.prompt !== undefined || flags.feedback || flags.multiStep)) {
    throw new LociError('INVALID_ARGUMENT', '--prompt/--response/--outcome/--feedback/--multi-step/--conversation apply to --kind interaction or turn only.');
  }
  const input: RecordInput = { kind };
  if (flags.namespace?.[0]) input.namespace = flags.namespace[0];
  if (text.trim() !== '') input.text = text;
  if (flags.prompt !== undefined) input.prompt = flags.prompt;
  if (flags.response !== undefined) input.response = flags.response;
  if (flags.outcome !== undefined) input.outcome = outcome(flags.outcome);
  if (flags.feedback !== undefined) input.feedback = flags.feedback;
  if (flags.multiStep) input.multiStep = true;
  if (flags.conversation !== undefined) input.conversationId = flags.conversation;
  if (flags.id) input.id = flags.id;
  if (flags.time) input.time = time(flags.time, '--time');
  if (flags.ttl) input.ttlMs = duration(flags.ttl);
  if (flags.metadata) input.metadata = jsonObject(flags.metadata, '--metadata');
  return input;
}

function kinds(values: string[]): MemoryKind[] {
  const out = values.flatMap((value) => value.split(','));
  for (const kind of out) {
    if (!(memoryKinds as readonly string[]).includes(kind)) throw new LociError('INVALID_ARGUMENT', `--kind must be one of ${memoryKinds.join(', ')}; got "${kind}".${meantChoice(kind, memoryKinds)}`);
  }
  return out as MemoryKind[];
}

function outcome(value: string): InteractionOutcome {
  if (!(interactionOutcomes as readonly string[]).includes(value))
    throw new LociError('INVALID_ARGUMENT', `--outcome must be one of ${interactionOutcomes.join(', ')}; got "${value}".${meantChoice(value, interactionOutcomes)}`);
  return value as InteractionOutcome;
}

function mode(value: string): 'hybrid' | 'lexical' | 'vector' {
  if (value !== 'hybrid' && value !== 'lexical' && value !== 'vector') throw new LociError('INVALID_ARGUMENT', `--mode must be hybrid, lexical or vector; got "${value}".`);
  return value;
}

/** Epoch ms below this (March 1973) given as digits are taken for epoch seconds, a common slip, and refused. */
const EARLIEST_EPOCH_MS = 100_000_000_000;

function time(value: string, flag: string): number {
  const digits = /^\d+$/.test(value.trim());
  if (digits && Number(value) < EARLIEST_EPOCH_MS) {
    throw new LociError('INVALID_ARGUMENT', `${flag} "${value}" looks like epoch seconds (as epoch ms it would be ${new Date(Number(value)).toISOString()}).`, {
      hint: `Pass epoch ms (${value}000) or an ISO date (2024-05-08).`,
    });
  }
  const parsed = digits ? Number(value) : parseTime(value);
  if (parsed === undefined) throw new LociError('INVALID_ARGUMENT', `${flag} "${value}" is not a time; use an ISO date (2024-05-08), epoch ms or "1:56 pm on 8 May, 2023".`);
  return checkTime(parsed, `${flag} "${value}"`);
}

/**
 * A record id as given: alone, or as the `namespace/id` that list, search and add print (ids
 * hold no slash, so the last segment is the id). A namespace both prefixed and passed with
 * --namespace must be the same one.
 */
function qualifiedId(value: string, namespaceFlag: string | undefined): { id: string; namespace?: string } {
  const slash = value.lastIndexOf('/');
  if (slash < 0) return namespaceFlag ? { id: value, namespace: namespaceFlag } : { id: value };
  const namespace = value.slice(0, slash);
  const id = value.slice(slash + 1);
  if (namespace === '' || id === '') return { id: value }; // refused as an id, with the rule, by the store
  if (namespaceFlag && namespaceFlag.replace(/\/+$/, '') !== namespace) {
    throw new LociError('INVALID_ARGUMENT', `${value} names namespace ${namespace}, but --namespace says ${namespaceFlag}.`, {
      hint: 'Give the id alone with --namespace, or namespace/id without it.',
    });
  }
  return { id, namespace };
}

function oneNamespace(values: string[] | undefined): string | undefined {
  if (values && values.length > 1) throw new LociError('INVALID_ARGUMENT', 'Give one --namespace.');
  return values?.[0];
}

function duration(value: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)$/.exec(value.trim());
  if (!match) throw new LociError('INVALID_ARGUMENT', `--ttl "${value}" is not a duration; use e.g. 90m, 12h, 30d.`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[match[2] as 'ms'];
  const ms = Number(match[1]) * unit;
  if (!(ms > 0)) throw new LociError('INVALID_ARGUMENT', `--ttl "${value}" is no time at all; give a duration longer than 0, e.g. 90m, 12h, 30d (or --no-ttl on update to keep it forever).`);
  return ms;
}

function jsonObject(value: string, flag: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // fall through to the error below
  }
  throw new LociError('INVALID_ARGUMENT', `${flag} must be a JSON object, e.g. '{"source":"chat"}'.`);
}

function positiveInt(value: string, flag: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new LociError('INVALID_ARGUMENT', `${flag} must be a positive integer; got "${value}".`);
  return parsed;
}

function finite(value: string, flag: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed)) throw new LociError('INVALID_ARGUMENT', `${flag} must be a number; got "${value}".`);
  return parsed;
}
