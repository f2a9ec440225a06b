// Shared helpers: percentiles, machine description, JSON lines + a table.
import os from 'node:os';

export function percentile(sorted, fraction) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

export function summarize(times) {
  const sorted = [...times].sort((a, b) => a - b);
  const round = (value) => Math.round(value * 1000) / 1000;
  return { p50Ms: round(percentile(sorted, 0.5)), p95Ms: round(percentile(sorted, 0.95)), p99Ms: round(percentile(sorted, 0.99)) };
}

export function machine() {
  return { cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? 'unknown', memoryGB: Math.round(os.totalmem() / 2 ** 30), node: process.version, platform: `${os.platform()} ${os.release()}` };
}

export function rssMB() {
  return Math.round(process.memoryUsage().rss / 2 ** 20);
}

/** Prints each row as a JSON line (--json) or as an aligned table at the end. */
export function createReporter(argv = process.argv) {
  const json = argv.includes('--json');
  const rows = [];
  return {
    row(record) {
      rows.push(record);
      if (json) console.log(JSON.stringify(record));
    },
    done() {
      if (json || rows.length === 0) return;
      const keys = [...new Set(rows.flatMap((row) => Object.keys(row)))];
      const width = Object.fromEntries(keys.map((key) => [key, Math.max(key.length, ...rows.map((row) => String(row[key] ?? '').length))]));
      console.log(keys.map((key) => key.padEnd(width[key])).join('  '));
      for (const row of rows) console.log(keys.map((key) => String(row[key] ?? '').padEnd(width[key])).join('  '));
    },
  };
}

export function argument(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 && process.argv[index + 1] ? process.argv[index + 1] : fallback;
}
