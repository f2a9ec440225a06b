import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { LociError } from '../errors/index.js';
import { configSchema, type LociConfig } from './schema.js';

export const CONFIG_FILE_NAME = 'loci.config.json';

type Origin = string; // "loci.config.json", "LOCI_SEARCH_TOP_K", "--top-k", …
type Raw = Record<string, unknown>;

export interface ConfigLayer {
  /** Where these values came from, used in error messages. */
  origin: Origin;
  values: Raw;
  /** Per-path origin overrides (e.g. the env var name of one key). */
  originOfPath?: Map<string, Origin>;
}

export interface LoadConfigOptions {
  /** Path of a loci.config.json to read; missing is fine unless `requireFile`. */
  configFile?: string;
  requireFile?: boolean;
  /** Environment to read LOCI_* variables from. The library never reads process.env itself. */
  env?: Record<string, string | undefined>;
  /** Flag values, already shaped like the config (highest precedence). */
  flags?: Raw;
}

/** Reads a config file, LOCI_* variables and flags, in that precedence, and validates once. */
export function loadConfig(options: LoadConfigOptions = {}): LociConfig {
  const layers: ConfigLayer[] = [];
  if (options.configFile) {
    const fromFile = readConfigFile(options.configFile, options.requireFile ?? false);
    if (fromFile) layers.push({ origin: options.configFile, values: fromFile });
  }
  if (options.env) layers.push(environmentLayer(options.env));
  if (options.flags) layers.push({ origin: 'flags', values: options.flags });
  return resolveConfig(layers);
}

/** Merges layers (later wins) and validates; an error lists every bad key with its origin. */
export function resolveConfig(layers: ConfigLayer[]): LociConfig {
  const merged: Raw = {};
  const origins = new Map<string, Origin>();
  for (const layer of layers) mergeInto(merged, layer.values, [], layer, origins);
  const parsed = configSchema.safeParse(merged);
  if (parsed.success) return parsed.data;
  throw configError(parsed.error, origins);
}

function mergeInto(target: Raw, source: Raw, path: string[], layer: ConfigLayer, origins: Map<string, Origin>): void {
  for (const [key, value] of Object.entries(source)) {
    if (value === undefined) continue;
    const keyPath = [...path, key];
    const dotted = keyPath.join('.');
    if (isPlainObject(value)) {
      const existing = target[key];
      const child: Raw = isPlainObject(existing) ? existing : {};
      target[key] = child;
      mergeInto(child, value, keyPath, layer, origins);
    } else {
      target[key] = value;
      origins.set(dotted, layer.originOfPath?.get(dotted) ?? layer.origin);
    }
  }
}

function configError(error: z.ZodError, origins: Map<string, Origin>): LociError {
  const problems = error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => {
        const path = [...issue.path.map(String), key].join('.');
        return { path, origin: originFor(path, origins), message: `unknown key (known keys: ${knownKeys(issue.path.map(String)).join(', ')})` };
      });
    }
    const path = issue.path.map(String).join('.') || '(root)';
    return [{ path, origin: originFor(path, origins), message: issue.message }];
  });
  const lines = problems.map((p) => `  ${p.path} (from ${p.origin}): ${p.message}`);
  return new LociError('CONFIG_INVALID', `Invalid configuration, ${problems.length} problem(s):\n${lines.join('\n')}\n`, {
    details: { problems },
  });
}

function originFor(path: string, origins: Map<string, Origin>): Origin {
  for (let candidate = path; candidate; candidate = candidate.slice(0, Math.max(0, candidate.lastIndexOf('.')))) {
    const origin = origins.get(candidate);
    if (origin) return origin;
    if (!candidate.includes('.')) break;
  }
  return 'defaults';
}

function knownKeys(path: string[]): string[] {
  let shape: z.ZodType = configSchema;
  for (const key of path) {
    const inner = unwrap(shape);
    if (!(inner instanceof z.ZodObject)) return [];
    const next = (inner.shape as Record<string, z.ZodType>)[key];
    if (!next) return [];
    shape = next;
  }
  const inner = unwrap(shape);
  return inner instanceof z.ZodObject ? Object.keys(inner.shape) : [];
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current: z.ZodType = schema;
  for (let depth = 0; depth < 8; depth++) {
    const def = (current as unknown as { def: { innerType?: z.ZodType } }).def;
    if (!def.innerType) return current;
    current = def.innerType;
  }
  return current;
}

export function readConfigFile(path: string, required: boolean): Raw | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (!required && (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new LociError('CONFIG_INVALID', `Cannot read config file ${path}: ${(error as Error).message}.`, { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new LociError('CONFIG_INVALID', `Config file ${path} is not valid JSON: ${(error as Error).message}.`, { cause: error });
  }
  if (!isPlainObject(value)) {
    throw new LociError('CONFIG_INVALID', `Config file ${path} must hold a JSON object, e.g. {"embedder": "none"}.`);
  }
  return value;
}

/**
 * Maps LOCI_<PATH> variables onto config keys: `search.topK` ← LOCI_SEARCH_TOP_K.
 * Variables that name no config key are left alone (secrets such as LOCI_LLM_API_KEY
 * are read by the adapter that needs them, never stored in config).
 */
export function environmentLayer(env: Record<string, string | undefined>): ConfigLayer {
  const values: Raw = {};
  const originOfPath = new Map<string, Origin>();
  for (const { path, kind } of configLeaves()) {
    const name = `LOCI_${path.map(toScreamingSnake).join('_')}`;
    const text = env[name];
    if (text === undefined || text === '') continue;
    let target = values;
    for (const key of path.slice(0, -1)) {
      const child = (target[key] as Raw | undefined) ?? {};
      target[key] = child;
      target = child;
    }
    target[path[path.length - 1] as string] = parseEnvironmentValue(text, kind);
    originOfPath.set(path.join('.'), name);
  }
  return { origin: 'environment', values, originOfPath };
}

type LeafKind = 'number' | 'boolean' | 'array' | 'string';

function configLeaves(): Array<{ path: string[]; kind: LeafKind }> {
  const leaves: Array<{ path: string[]; kind: LeafKind }> = [];
  const visit = (schema: z.ZodType, path: string[]): void => {
    const inner = unwrap(schema);
    if (inner instanceof z.ZodObject) {
      for (const [key, child] of Object.entries(inner.shape as Record<string, z.ZodType>)) visit(child, [...path, key]);
      return;
    }
    const kind: LeafKind =
      inner instanceof z.ZodNumber ? 'number' : inner instanceof z.ZodBoolean ? 'boolean' : inner instanceof z.ZodArray ? 'array' : 'string';
    leaves.push({ path, kind });
  };
  visit(configSchema, []);
  return leaves;
}

function parseEnvironmentValue(text: string, kind: LeafKind): unknown {
  switch (kind) {
    case 'number': {
      const value = Number(text);
      return Number.isFinite(value) ? value : text; // leave bad text for zod to report
    }
    case 'boolean':
      if (/^(1|true|yes|on)$/i.test(text)) return true;
      if (/^(0|false|no|off)$/i.test(text)) return false;
      return text;
    case 'array':
      return text.trim().startsWith('[') ? safeJson(text) : text.split(',').map((part) => part.trim()).filter(Boolean);
    case 'string':
      return text;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function toScreamingSnake(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

function isPlainObject(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
