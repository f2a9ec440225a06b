import type { Node } from '@vscode/tree-sitter-wasm';
import { LociError } from '../../errors/index.js';
import { LineTable, splitRangeByBudget } from '../lines.js';
import { windowChunks } from '../line-window.js';
import type { ChunkDraft, ChunkInput, Chunker } from '../spec.js';
import { specFor, type LanguageSpec } from './languages.js';
import { parserFor } from './load-parser.js';

/** A run of whole lines holding one top-level node (plus any comments glued before it). */
interface Segment {
  start: number;
  end: number;
  nodes: Node[];
}

interface Definition {
  name: string;
  /** Other names the same definition is bound to (`res.set = res.header = function…`). */
  aliases: string[];
  body: Node | undefined;
}

/**
 * How many definitions deep the chunker opens code up. Real code stays far below; a file
 * nesting deeper (hostile or generated) is refused here and cut into line windows by
 * chunkFile, instead of recursing until the stack overflows.
 */
export const MAX_DEFINITION_NESTING = 32;

interface Context {
  table: LineTable;
  spec: LanguageSpec;
  input: ChunkInput;
}

/**
 * Cuts code along its syntax: consecutive top-level nodes are packed up to the token
 * budget; a definition too big for the budget is opened up and its members packed the
 * same way, with qualified symbols (`Invoice.total`); what is still too big is split by
 * lines. Chunks cover every non-blank line, and their text is exactly those lines.
 */
export const codeChunker: Chunker = {
  id: 'tree-sitter',
  version: 5,
  supports: (language) => specFor(language) !== undefined,
  async chunk(input: ChunkInput): Promise<ChunkDraft[]> {
    const spec = specFor(input.language);
    const table = new LineTable(input.text);
    if (!spec || table.count === 0) return windowChunks(table, input);
    let parser: Awaited<ReturnType<typeof parserFor>>;
    try {
      parser = await parserFor(spec.grammar);
    } catch (error) {
      // Not silent: chunkFileWithOutcome falls back to line windows and the run's warnings say why.
      const why = error instanceof Error ? error.message : String(error);
      throw new Error(`the ${spec.grammar} grammar failed to load (${why}), so this file has no symbols or definitions`);
    }
    const tree = parser.parse(input.text);
    if (!tree) return windowChunks(table, input);
    try {
      const context: Context = { table, spec, input };
      const segments = segmentsOf(tree.rootNode.namedChildren, 1, table.count, table);
      return pack(segments, [], context);
    } finally {
      tree.delete();
    }
  },
};

function startLineOf(node: Node): number {
  return node.startPosition.row + 1;
}

function endLineOf(node: Node): number {
  const { row, column } = node.endPosition;
  // A node that ends at column 0 stops at the end of the previous line.
  return column === 0 && row > node.startPosition.row ? row : row + 1;
}

function segmentsOf(children: ReadonlyArray<Node | null>, rangeStart: number, rangeEnd: number, table: LineTable): Segment[] {
  const segments: Segment[] = [];
  let cursor = rangeStart;
  let pendingComments: Node[] = [];
  for (const child of children) {
    if (!child) continue;
    const end = Math.min(endLineOf(child), rangeEnd);
    if (end < cursor) {
      // shares a line with the previous node
      const last = segments[segments.length - 1];
      if (last) last.nodes.push(child);
      continue;
    }
    if (child.type.includes('comment') && pendingComments.length === 0 && segments.length > 0 && startLineOf(child) === (segments[segments.length - 1] as Segment).end) {
      (segments[segments.length - 1] as Segment).nodes.push(child); // trailing comment on the same line
      continue;
    }
    if (child.type.includes('comment')) {
      pendingComments.push(child);
      continue;
    }
    const start = pendingComments.length > 0 ? cursor : Math.max(cursor, Math.min(startLineOf(child), cursor));
    segments.push({ start, end: Math.max(end, start), nodes: [...pendingComments, child] });
    pendingComments = [];
    cursor = Math.max(end, start) + 1;
  }
  if (pendingComments.length > 0) {
    segments.push({ start: cursor, end: Math.max(cursor, Math.min(rangeEnd, endLineOf(pendingComments[pendingComments.length - 1] as Node))), nodes: pendingComments });
    cursor = (segments[segments.length - 1] as Segment).end + 1;
  }
  if (cursor <= rangeEnd) {
    const last = segments[segments.length - 1];
    if (last) last.end = rangeEnd;
    else if (table.trim(cursor, rangeEnd)) segments.push({ start: cursor, end: rangeEnd, nodes: [] });
  }
  return segments;
}

function definitionOf(node: Node, spec: LanguageSpec): Definition | undefined {
  const inner = spec.unwrap?.(node) ?? node;
  // A block that names nothing itself (`declare global { … }`): its members keep the outer qualifier.
  const transparent = spec.transparentBody?.(inner);
  if (transparent) return { name: '', aliases: [], body: transparent };
  if (!spec.definitions.has(inner.type)) return undefined;
  const name = spec.nameOf ? spec.nameOf(inner) : inner.childForFieldName('name')?.text;
  if (!name) return undefined;
  return { name, aliases: spec.aliasesOf?.(inner) ?? [], body: inner.childForFieldName('body') ?? undefined };
}

/** The qualifier inside a definition: its name added, unless it names nothing (a transparent block). */
function qualified(qualifier: string[], definition: Definition): string[] {
  return definition.name === '' ? qualifier : [...qualifier, definition.name];
}

function collectSymbols(node: Node, qualifier: string[], spec: LanguageSpec, out: string[], depth = 0): void {
  const definition = definitionOf(node, spec);
  if (!definition) return;
  const inner = qualified(qualifier, definition);
  if (definition.name !== '') out.push(inner.join('.'));
  for (const alias of definition.aliases) out.push([...qualifier, alias].join('.'));
  if (!definition.body || depth > 4) return;
  for (const child of definition.body.namedChildren) if (child) collectSymbols(child, inner, spec, out, depth + 1);
}

function pack(segments: Segment[], qualifier: string[], context: Context): ChunkDraft[] {
  const { table, input } = context;
  const chunks: ChunkDraft[] = [];
  let current: Segment[] = [];
  const flush = () => {
    if (current.length === 0) return;
    const first = current[0] as Segment;
    const last = current[current.length - 1] as Segment;
    const symbols: string[] = [];
    for (const segment of current) for (const node of segment.nodes) collectSymbols(node, qualifier, context.spec, symbols);
    const chunk = makeChunk(table, first.start, last.end, symbols, qualifier);
    if (chunk) chunks.push(chunk);
    current = [];
  };
  for (const segment of segments) {
    const tokens = table.tokens(segment.start, segment.end);
    if (tokens > input.tokenBudget) {
      flush();
      chunks.push(...splitSegment(segment, qualifier, context));
      continue;
    }
    if (current.length > 0 && table.tokens((current[0] as Segment).start, segment.end) > input.tokenBudget) flush();
    current.push(segment);
  }
  flush();
  return chunks;
}

function splitSegment(segment: Segment, qualifier: string[], context: Context): ChunkDraft[] {
  const { table, input, spec } = context;
  const main = segment.nodes.find((node) => definitionOf(node, spec));
  const definition = main ? definitionOf(main, spec) : undefined;
  const members = definition?.body?.namedChildren.filter((child): child is Node => child !== null) ?? [];
  // Open the definition up when it has members to pack (a namespace holding one class counts).
  const single = members.length === 1 && definitionOf(members[0] as Node, spec) !== undefined;
  if (definition && (members.length > 1 || single)) {
    if (qualifier.length >= MAX_DEFINITION_NESTING) {
      throw new LociError('NOT_SUPPORTED', `Definitions nest deeper than ${MAX_DEFINITION_NESTING} levels; the file is cut into line windows instead.`, { details: { limit: MAX_DEFINITION_NESTING } });
    }
    const inner = segmentsOf(members, segment.start, segment.end, table);
    const chunks = pack(inner, qualified(qualifier, definition), context);
    // The piece holding the definition's own first line defines it too (`class Dict:` and its
    // first methods), so the class is found by its name, not only its members.
    const head = chunks.find((chunk) => chunk.startLine <= segment.end && chunk.endLine >= startLineOf(main as Node));
    if (head && definition.name !== '') {
      const own = [definition.name, ...definition.aliases].map((name) => [...qualifier, name].join('.'));
      head.symbols = [...new Set([...own, ...(head.symbols ?? [])])];
      head.symbol = own[0] as string;
    }
    return chunks;
  }
  const symbol = definition && definition.name !== '' ? qualified(qualifier, definition).join('.') : undefined;
  const chunks: ChunkDraft[] = [];
  for (const piece of splitRangeByBudget(table, segment.start, segment.end, input.tokenBudget)) {
    if (piece.start === piece.end && table.tokens(piece.start, piece.end) > input.tokenBudget) {
      // one enormous line (minified code): cut by characters
      for (const window of windowChunks(table, input, piece)) chunks.push({ ...window, kind: 'code', ...(symbol ? { symbol, symbols: [symbol] } : {}) });
      continue;
    }
    const chunk = makeChunk(table, piece.start, piece.end, symbol ? [symbol] : [], qualifier);
    if (chunk) chunks.push(chunk);
  }
  return chunks;
}

function makeChunk(table: LineTable, start: number, end: number, symbols: string[], qualifier: string[]): ChunkDraft | undefined {
  const range = table.trim(start, end);
  if (!range) return undefined;
  const chunk: ChunkDraft = { startLine: range.start, endLine: range.end, text: table.text(range.start, range.end), kind: 'code' };
  // A piece of a split definition is still about that definition.
  const all = symbols.length > 0 ? symbols : qualifier.length > 0 ? [qualifier.join('.')] : [];
  if (all[0]) chunk.symbol = all[0];
  if (all.length > 0) chunk.symbols = all;
  return chunk;
}
