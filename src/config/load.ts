import { isPlainObject } from '../errors/check-types.js';
import { invalidConfigError } from './config-problems.js';
import { meantKey } from '../errors/meant-key.js';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { withPathsFrom } from './file-paths.js';
import { z } from 'zod';
import { LociError } from '../errors/index.js';
import { tightestIssues } from '../errors/zod-issues.js';
import { seedAliasLayer } from './aliases.js';
import { folderConfigLayers, type FolderConfigTrust } from './folder-config.js';
import { parseConfigText } from './parse-file.js';
import { configSchema, type LociConfig } from './schema.js';
import { schemaAt } from './schema-walk.js';
import { unwrapSchema as unwrap } from '../errors/schema-path.js';

export { FOLDER_CONFIG_FILE_NAME as CONFIG_FILE_NAME } from './folder-config.js';

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
  /** A config file the user chose (trusted, like `--config`); missing is fine unless `requireFile`. */
  configFile?: string;
  requireFile?: boolean;
  /**
   * The indexed folder: its own loci.config.json is read as untrusted, so it may set only
   * local keys (ignore rules, chunking, ranking weights) unless `trustFolderConfig` allows it.
   */
  folder?: string;
  /** true, or a check of the file's real folder path and content hash. Default false. */
  trustFolderConfig?: FolderConfigTrust;
  /** Environment to read LOCI_* variables from. The library never reads process.env itself. */
  env?: Record<string, string | undefined>;
  /** Flag values, already shaped like the config (highest precedence). */
  flags?: Raw;
}

/** Reads a config file, the folder's config, LOCI_* variables and flags, in that precedence, and validates once. */
export function loadConfig(options: LoadConfigOptions = {}): LociConfig {
  // The seed agents' variable names (EMBEDDING_MODEL, …) sit below everything of loci's own.
  const layers: ConfigLayer[] = options.env ? [seedAliasLayer(options.env)] : [];
  if (options.configFile) {
    const fromFile = readConfigFile(options.configFile, options.requireFile ?? false);
    if (fromFile) layers.push({ origin: options.configFile, values: fromFile });
  }
  const later: ConfigLayer[] = [];
  if (options.env) later.push(environmentLayer(options.env));
  if (options.flags) later.push({ origin: 'flags', values: options.flags });
  if (options.folder) layers.push(...folderConfigLayers(options.folder, options.trustFolderConfig, later));
  return resolveConfig([...layers, ...later]);
}

/** Merges layers (later wins) and validates; an error lists every bad key with its origin. */
export function resolveConfig(layers: ConfigLayer[]): LociConfig {
  const merged: Raw = {};
  const origins = new Map<string, Origin>();
  for (const layer of layers) mergeInto(merged, layer.values, [], layer, origins);
  // Parsed once or twice per process: zod's compiled fast path costs more to build (~10 ms
  // of a one-shot CLI search) than it saves on one parse.
  const parsed = configSchema.safeParse(merged, { jitless: true });
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
      // A section's own origin too: a misspelled one (`serch: {…}`) is reported as from where it was written.
      origins.set(dotted, layer.originOfPath?.get(dotted) ?? layer.origin);
      mergeInto(child, value, keyPath, layer, origins);
    } else {
      target[key] = value;
      origins.set(dotted, layer.originOfPath?.get(dotted) ?? layer.origin);
    }
  }
}

function configError(error: z.ZodError, origins: Map<string, Origin>): LociError {
  const problems = tightestIssues(error.issues).flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => {
        const path = [...issue.path.map(String), key].join('.');
        const known = knownKeys(issue.path.map(String));
        const meant = meantKey(key, known);
        return { path, origin: originFor(path, origins), message: `unknown key (${meant ? `did you mean "${meant}"? ` : ''}known keys: ${known.join(', ')})` };
      });
    }
    const path = issue.path.map(String).join('.') || '(root)';
    return [{ path, origin: originFor(path, origins), message: issue.message }];
  });
  return invalidConfigError(problems);
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
  const inner = schemaAt(path);
  return inner instanceof z.ZodObject ? Object.keys(inner.shape) : [];
}

export function readConfigFile(path: string, required: boolean): Raw | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!required && code === 'ENOENT') return undefined;
    throw new LociError('CONFIG_INVALID', `Cannot read config file ${path}: ${(error as Error).message}.`, {
      cause: error,
      hint:
        code === 'ENOENT'
          ? 'Check the path given to --config (a relative path is taken from the current folder), or create the file.'
          : code === 'EISDIR'
            ? 'Pass --config a JSON file, not a folder.'
            : 'Make the file readable by this user, or pass another file with --config.',
    });
  }
  // A relative file it names is read from beside it (file-paths.ts).
  return withPathsFrom(parseConfigText(text, path), dirname(resolve(path)));
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
    const name = variableOf(path);
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

/** The LOCI_* variable of every config key (LOCI_SEARCH_TOP_K, …). */
export function configVariableNames(): string[] {
  return configLeaves().map(({ path }) => variableOf(path));
}

function variableOf(path: readonly string[]): string {
  return `LOCI_${path.map(toScreamingSnake).join('_')}`;
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
    const kind: LeafKind = inner instanceof z.ZodNumber ? 'number' : inner instanceof z.ZodBoolean ? 'boolean' : inner instanceof z.ZodArray ? 'array' : 'string';
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
      return text.trim().startsWith('[')
        ? safeJson(text)
        : text
            .split(',')
            .map((part) => part.trim())
            .filter(Boolean);
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
