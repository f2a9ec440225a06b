import type { MemoryHit, MemoryRecord } from '../../../memory/spec.js';
import { printable } from '../format.js';

export { publicHit, publicRecord } from '../../../memory/public-record.js';

export function formatHits(hits: MemoryHit[]): string {
  if (hits.length === 0) return 'No memories found.\n';
  const explained = (hit: MemoryHit) =>
    hit.explanation
      ? `\n   [${Object.entries(hit.explanation)
          .map(([signal, part]) => `${signal} ${part.raw.toFixed(3)} → ${part.normalized.toFixed(3)} × ${part.weight} = ${part.contribution.toFixed(3)}`)
          .join('; ')}]`
      : '';
  return `${hits.map((hit, index) => `${index + 1}. [${hit.record.namespace}/${hit.record.id}] ${hit.record.kind} ${isoTime(hit.record.time)}  (score ${hit.score.toFixed(3)})\n   ${oneLine(hit.record.text)}${explained(hit)}`).join('\n')}\n`;
}

// Record texts come from any caller (HTTP, MCP, an import): their control characters are shown, not obeyed.

/** One record in full: its text, times, links and the texts `update` replaced (versions). */
export function formatRecord(record: MemoryRecord): string {
  const text = record.text.split('\n').map(printable).join('\n');
  const lines = [`${record.namespace}/${record.id}  ${record.kind}  ${isoTime(record.time)}${record.mergedCount > 0 ? `  (merged ${record.mergedCount}×)` : ''}`, text];
  if (record.conflictsWith?.length) lines.push(`contradicts (older near-duplicates): ${record.conflictsWith.join(', ')}`);
  if (record.metadata) lines.push(`metadata: ${printable(JSON.stringify(record.metadata))}`);
  for (const [index, version] of (record.versions ?? []).entries()) lines.push(`version ${index + 1} (replaced ${isoTime(version.replacedAt)}): ${oneLine(version.text)}`);
  return `${lines.join('\n')}\n`;
}

/** Read warnings (e.g. a repaired time), one line each, for stderr. */
export function formatWarnings(records: MemoryRecord[]): string {
  return records.flatMap((record) => (record.warnings ?? []).map((warning) => `warning: ${record.namespace}/${record.id}: ${printable(warning)}\n`)).join('');
}

export function formatRecords(records: MemoryRecord[]): string {
  if (records.length === 0) return 'No records.\n';
  return `${records.map((record) => `${record.namespace}/${record.id}  ${record.kind}  ${isoTime(record.time)}  ${oneLine(record.text)}`).join('\n')}\n`;
}

function oneLine(text: string): string {
  const flat = printable(text.replace(/\s+/g, ' ').trim());
  return flat.length > 160 ? `${flat.slice(0, 157)}…` : flat;
}

/** ISO time, or the raw number when it has none (times are checked on write and repaired on read, so this is a last guard). */
function isoTime(time: number): string {
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? String(time) : date.toISOString();
}
