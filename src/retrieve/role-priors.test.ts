import { describe, expect, it } from 'vitest';
import type { FileRole } from '../sources/file-role.js';
import type { FusionCandidate } from './fusion.js';
import { applyRolePriors, DEFAULT_ROLE_PENALTIES, DEFAULT_ROLE_PRIOR_DEPTH, DEFAULT_SUBJECT_SHARE } from './role-priors.js';

const weights = { penalties: DEFAULT_ROLE_PENALTIES, subjectShare: DEFAULT_SUBJECT_SHARE, depth: DEFAULT_ROLE_PRIOR_DEPTH };
const candidate = (rowId: number, path: string, score: number): FusionCandidate => ({ rowId, path, score, signals: {}, contributions: {} });
const roleOf = (path: string): FileRole => (/\.test\.|tests?\//.test(path) ? 'test' : path.endsWith('.md') ? 'docs' : 'implementation');
const rolesFor = (candidates: FusionCandidate[]) => new Map(candidates.map((c) => [c.path, roleOf(c.path)]));
const nonIncreasing = (ranked: FusionCandidate[]) => ranked.every((c, i) => i === 0 || c.score <= (ranked[i - 1] as FusionCandidate).score);

describe('applyRolePriors', () => {
  it('scales tests down unless asked, and lets a test lend a little to its subject', () => {
    const candidates = [candidate(1, 'src/compose.test.ts', 0.85), candidate(2, 'src/compose.ts', 0.6), candidate(3, 'src/other.ts', 0.62)];
    const roles = rolesFor(candidates);
    const ranked = applyRolePriors(candidates, roles, new Set(), weights);
    expect(ranked.map((c) => c.path)).toEqual(['src/compose.ts', 'src/other.ts', 'src/compose.test.ts']);
    expect(ranked[0]!.adjustments?.fromTests).toBeGreaterThan(0);
    expect(ranked[2]!.adjustments?.role).toEqual({ role: 'test', factor: 0.7 });
    expect(ranked.every((c) => c.score <= 1)).toBe(true);
    // A query that asks for tests keeps the test where the ranker put it.
    expect(applyRolePriors(candidates, roles, new Set(['test']), weights)[0]!.path).toBe('src/compose.test.ts');
  });

  it('orders only the lead: below it, tests and docs keep their retrieval order instead of falling off the page', () => {
    // Retrieval order: two tests and a changelog first, then seven implementation files.
    const candidates = [
      candidate(1, 'src/a.test.ts', 0.95),
      candidate(2, 'CHANGELOG.md', 0.93),
      candidate(3, 'src/b.test.ts', 0.9),
      ...['c', 'd', 'e', 'f', 'g', 'h', 'i'].map((name, index) => candidate(4 + index, `src/${name}.ts`, 0.8 - index * 0.05)),
    ];
    const ranked = applyRolePriors(candidates, rolesFor(candidates), new Set(), { ...weights, depth: 3 });
    // The lead holds the three best after the priors (implementation), then retrieval order resumes.
    expect(ranked.map((c) => c.path)).toEqual(['src/c.ts', 'src/d.ts', 'src/e.ts', 'src/a.test.ts', 'CHANGELOG.md', 'src/b.test.ts', 'src/f.ts', 'src/g.ts', 'src/h.ts', 'src/i.ts']);
    expect(nonIncreasing(ranked)).toBe(true);
    // Results lifted into the page above their own place show the cap, not a role factor.
    expect(ranked[3]!.score).toBe(ranked[2]!.score);
    expect(ranked[3]!.adjustments).toEqual({ capped: 0.95 });
    expect(ranked[6]!.score).toBeCloseTo(0.65);
    // With the whole list as the lead, the scaled scores order everything (the second test drops below src/f.ts).
    const everywhere = applyRolePriors(candidates, rolesFor(candidates), new Set(), { ...weights, depth: 1000 });
    expect(everywhere.map((c) => c.path)).toEqual(['src/c.ts', 'src/d.ts', 'src/e.ts', 'CHANGELOG.md', 'src/a.test.ts', 'src/f.ts', 'src/b.test.ts', 'src/g.ts', 'src/h.ts', 'src/i.ts']);
    expect(nonIncreasing(everywhere)).toBe(true);
  });

  it('counts files, not chunks, in files mode', () => {
    const candidates = [
      candidate(1, 'src/x.test.ts', 0.82),
      candidate(2, 'src/big.ts', 0.8),
      candidate(3, 'src/big.ts', 0.79),
      candidate(4, 'src/big.ts', 0.78),
      candidate(5, 'src/small.ts', 0.6),
      candidate(6, 'src/x.test.ts', 0.5),
    ];
    const roles = rolesFor(candidates);
    const files = (ranked: FusionCandidate[]) => [...new Set(ranked.map((c) => c.path))];
    // Chunks: the lead is two chunks of big.ts; the test comes back right after them.
    expect(files(applyRolePriors(candidates, roles, new Set(), { ...weights, depth: 2 }, false))).toEqual(['src/big.ts', 'src/x.test.ts', 'src/small.ts']);
    // Files: the lead is big.ts and small.ts; the test follows.
    const byFile = applyRolePriors(candidates, roles, new Set(), { ...weights, depth: 2 }, true);
    expect(files(byFile)).toEqual(['src/big.ts', 'src/small.ts', 'src/x.test.ts']);
    // The cap is the lead's lowest file score (small.ts), not a lower chunk of big.ts.
    expect(byFile.find((c) => c.path === 'src/x.test.ts')!.score).toBe(0.6);
  });

  it('depth 0 leaves the retrieval order and scores as they were', () => {
    const candidates = [candidate(1, 'src/a.test.ts', 0.9), candidate(2, 'src/a.ts', 0.5)];
    expect(applyRolePriors(candidates, rolesFor(candidates), new Set(), { ...weights, depth: 0 })).toEqual(candidates);
  });
});

describe('role prior defaults', () => {
  it('are the config schema defaults', async () => {
    const { configSchema } = await import('../config/schema.js');
    const config = configSchema.parse({});
    expect(config.search.rolePenalties).toEqual(DEFAULT_ROLE_PENALTIES);
    expect(config.search.testSubjectShare).toBe(DEFAULT_SUBJECT_SHARE);
    expect(config.search.rolePriorDepth).toBe(DEFAULT_ROLE_PRIOR_DEPTH);
  });
});
