import { readFileSync } from 'node:fs';
import { meantChoice } from '../../errors/meant-key.js';
import { z } from 'zod';
import { LociError } from '../../errors/index.js';
import { featureNames, type FeatureName, type FeatureVector } from './features.js';
import { packageFile } from '../../package-files.js';
import { describeIssues } from '../../errors/zod-issues.js';
import { namesRankerFile } from '../../config/file-paths.js';

export const DEFAULT_RANKER_FILE = packageFile('models/ranker-v1.json');

/** Code chunks and prose chunks (documents, sections, windows) are weighed separately. */
export type RankerGroup = 'code' | 'prose';

const groupSchema = z.strictObject({
  bias: z.number(),
  weights: z.partialRecord(z.enum(featureNames), z.number()),
});

const rankerSchema = z.strictObject({
  format: z.literal('loci-ranker'),
  version: z.literal(1),
  name: z.string().min(1),
  /** How many fused candidates (or files, when ranking files) the ranker reorders. */
  depth: z.number().int().min(1).max(1000),
  groups: z.strictObject({ code: groupSchema, prose: groupSchema }),
  /** Maps the linear score to a result score in (0, 1): logistic((score − center) / spread). */
  calibration: z.strictObject({ center: z.number(), spread: z.number().positive() }).optional(),
  /** Free-form provenance: how and on what it was trained, and what it scored. */
  about: z.record(z.string(), z.unknown()).optional(),
});

export type RankerModel = z.infer<typeof rankerSchema>;

/** How one feature moved one result: its value, the learned weight and their product. */
export interface FeatureContribution {
  value: number;
  weight: number;
  contribution: number;
}

export interface RankingExplanation {
  ranker: string;
  group: RankerGroup;
  bias: number;
  features: Partial<Record<FeatureName, FeatureContribution>>;
}

/** A linear ranker: score = bias(group) + Σ weight(group, feature) × feature. */
export class Ranker {
  private readonly weights: Record<RankerGroup, Float64Array>;

  constructor(readonly model: RankerModel) {
    const dense = (group: RankerGroup) => Float64Array.from(featureNames, (name) => model.groups[group].weights[name] ?? 0);
    this.weights = { code: dense('code'), prose: dense('prose') };
  }

  get name(): string {
    return this.model.name;
  }

  get depth(): number {
    return this.model.depth;
  }

  /** A result score in (0, 1), monotone in the linear score (0.5 = a typical head candidate). */
  calibrate(score: number): number {
    const { center, spread } = this.model.calibration ?? { center: 0, spread: 1 };
    return 1 / (1 + Math.exp(-(score - center) / spread));
  }

  score(features: FeatureVector, group: RankerGroup): number {
    const weights = this.weights[group];
    let score = this.model.groups[group].bias;
    for (let index = 0; index < weights.length; index++) score += (weights[index] as number) * (features[index] as number);
    return score;
  }

  explain(features: FeatureVector, group: RankerGroup): RankingExplanation {
    const weights = this.weights[group];
    const out: Partial<Record<FeatureName, FeatureContribution>> = {};
    featureNames.forEach((name, index) => {
      const weight = weights[index] as number;
      const value = features[index] as number;
      out[name] = { value, weight, contribution: weight * value };
    });
    return { ranker: this.model.name, group, bias: this.model.groups[group].bias, features: out };
  }
}

export function rankerGroupOf(kind: string): RankerGroup {
  return kind === 'code' ? 'code' : 'prose';
}

/** Parses and checks a ranker model (JSON text); the error says what is wrong and where. */
export function parseRanker(text: string, source: string): Ranker {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new LociError('CONFIG_INVALID', `The ranker model ${source} is not valid JSON: ${(error as Error).message}`, {
      hint: 'Point search.ranker at a file written by scripts/train-ranker.mjs, or use "default" or "none".',
    });
  }
  const parsed = rankerSchema.safeParse(json, { jitless: true }); // once per model file: no compiled fast path (config/load.ts)
  if (!parsed.success) {
    const problems = describeIssues(parsed.error.issues, '(root)');
    throw new LociError('CONFIG_INVALID', `The ranker model ${source} is not a loci-ranker v1 model: ${problems}`, {
      hint: 'Point search.ranker at a file written by scripts/train-ranker.mjs, or use "default" or "none".',
    });
  }
  return new Ranker(parsed.data);
}

const loaded = new Map<string, Ranker>();

/** The ranker a config names: "default" (shipped), "none" (fused order), or a model file. */
export function loadRanker(setting: string): Ranker | undefined {
  if (setting === 'none') return undefined;
  const file = setting === 'default' ? DEFAULT_RANKER_FILE : setting;
  const cached = loaded.get(file);
  if (cached) return cached;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    // A bare word is more likely a misspelled choice ("defualt") than a model file in the current folder.
    const meant = namesRankerFile(setting) ? '' : meantChoice(setting, ['default', 'none']);
    throw new LociError('CONFIG_INVALID', `Cannot read the ranker model ${file}: ${(error as Error).message}.${meant}`, {
      hint: 'Set search.ranker to "default", "none" or the path of a model file.',
    });
  }
  const ranker = parseRanker(text, file);
  loaded.set(file, ranker);
  return ranker;
}
