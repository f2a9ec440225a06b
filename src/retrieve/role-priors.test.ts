import { describe, expect, it } from 'vitest';
import type { FileRole } from '../sources/file-role.js';
import type { FusionCandidate } from './fusion.js';
import type { CatalogEntry } from '../store/spec.js';
import { applyRolePriors, DEFAULT_ROLE_PENALTIES, DEFAULT_ROLE_PRIOR_DEPTH, DEFAULT_SUBJECT_SHARE, rolesForPriors } from './role-priors.js';

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

describe('rolesForPriors', () => {
  const allRoles: FileRole[] = ['implementation', 'test', 'fixture', 'example', 'docs', 'generated', 'config', 'lock'];
  /** A catalog whose stored roles need not follow the paths; it records every path read. */
  const catalogOf = (stored: Map<string, FileRole>) => {
    const read: string[] = [];
    return {
      read,
      async getCatalogEntries(paths: string[]) {
        read.push(...paths);
        const entry = (path: string): CatalogEntry => ({
          path,
          size: 1,
          mtimeMs: 0,
          contentHash: '',
          language: 'typescript',
          chunker: '',
          embedder: 'none',
          chunkCount: 1,
          indexedAt: 0,
          attributes: JSON.stringify({ imports: [], role: stored.get(path) }),
        });
        return new Map(paths.filter((path) => stored.has(path)).map((path) => [path, entry(path)]));
      },
    };
  };
  let seed = 12345;
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

  it("orders every list exactly as every file's role would, in chunk and file mode", async () => {
    const stems = ['compose', 'parse', 'render', 'store', 'query', 'index', 'config', 'cli'];
    const shapes = [
      (stem: string) => `src/${stem}.ts`,
      (stem: string) => `src/${stem}.test.ts`,
      (stem: string) => `tests/test_${stem}.py`,
      (stem: string) => `lib/${stem}.py`,
      (stem: string) => `docs/${stem}.md`,
      (stem: string) => `pkg/${stem}_test.go`,
    ];
    let fewer = 0;
    for (let trial = 0; trial < 1000; trial++) {
      const count = 1 + Math.floor(random() * 300);
      const paths = Array.from({ length: 10 + Math.floor(random() * 200) }, (_, index) => `m${index % 23}/${pick(shapes)(pick(stems))}`);
      let score = 1 + random();
      const fall = pick([0.001, 0.004, 0.01, 0.05]);
      const plain = random();
      // Some lists hold only a few distinct scores: ties at the lead's edge.
      const levels = random() < 0.3 ? [0, 0.5, 1] : undefined;
      const candidates = Array.from({ length: count }, (_, index) => {
        // Mostly falling scores, with ties, a few rises and some below zero (a ranker's).
        const step = random();
        score = step < 0.1 ? score : step < 0.13 ? score + random() * 0.3 : score - random() * fall;
        return candidate(index + 1, pick(paths), levels ? pick(levels) : score);
      });
      const stored = new Map(paths.map((path) => [path, random() < plain ? 'implementation' : pick(allRoles)] as const));
      const asked = new Set<FileRole>(random() < 0.2 ? [pick(allRoles)] : []);
      const penalties = random() < 0.5 ? DEFAULT_ROLE_PENALTIES : (Object.fromEntries(allRoles.map((role) => [role, pick([0, 0.1, 0.5, 1, random()])])) as Record<FileRole, number>);
      const trialWeights = { penalties, subjectShare: random() < 0.5 ? DEFAULT_SUBJECT_SHARE : random(), depth: pick([0, 1, 2, 5, 5, 5, 8, 30]) };
      const files = random() < 0.3;
      const catalog = catalogOf(stored);
      const partial = await rolesForPriors(catalog, candidates, asked, trialWeights, files);
      const full = new Map([...new Set(candidates.map((c) => c.path))].map((path) => [path, stored.get(path) as FileRole]));
      expect(applyRolePriors(candidates, partial, asked, trialWeights, files)).toEqual(applyRolePriors(candidates, full, asked, trialWeights, files));
      for (const [path, role] of partial) expect(role).toBe(stored.get(path));
      expect(new Set(catalog.read).size).toBe(catalog.read.length); // no path read twice
      if (catalog.read.length < full.size) fewer++;
    }
    expect(fewer).toBeGreaterThan(20);
  });

  it('reads every role when a score is not a number, and none at depth 0', async () => {
    // Found by a review: a NaN makes the sort's order depend on the scores of files not read.
    // The review's list (65 files): Number('NaN') is NaN.
    const scored =
      '0 0 0.5 0.5 0.5 0.01 0.5 0 0.5 0.5 0.5 1 0.5 NaN 0.5 0.5 0.5 0.5 0.5 0.5 0.5 0.5 0 0.5 NaN 0.5 0.5 0.5 0.008 0.5 0.5 0.5 0.5 0.5 0 0 0.5 0.5 0.5 0.5 0.5 0.5 0.5 0.5 0.5 0.5 0.5 0.5 0 0.5 NaN 0.5 0.5 0.5 0.5 0.5 0.5 1 0 NaN 0.5 NaN 0.5 0.5 0.01'
        .split(' ')
        .map(Number);
    const candidates = scored.map((score, index) => candidate(index + 1, `f${index}.ts`, score));
    const stored = new Map(candidates.map((c, index) => [c.path, index === 33 || index === 64 ? 'lock' : 'implementation'] as const));
    const nanWeights = { ...weights, depth: 2 };
    const catalog = catalogOf(stored);
    const roles = await rolesForPriors(catalog, candidates, new Set(), nanWeights);
    expect(roles.size).toBe(candidates.length);
    expect(applyRolePriors(candidates, roles, new Set(), nanWeights)).toEqual(applyRolePriors(candidates, new Map(stored), new Set(), nanWeights));
    const none = catalogOf(stored);
    expect((await rolesForPriors(none, candidates, new Set(), { ...weights, depth: 0 })).size).toBe(0);
    expect(none.read).toEqual([]);
  });

  it("reads on when a file not read yet ties with the lead's lowest score (it would win the tie by its place)", async () => {
    // 16 docs first (0.6, penalised to 0.45), then src/u.ts (0.5, stored as docs), then a file named
    // like a test but stored as implementation (0.5, read first as a possible lender), then the rest.
    const candidates = [
      ...Array.from({ length: 16 }, (_, index) => candidate(index + 1, `docs/d${index}.md`, 0.6)),
      candidate(17, 'src/u.ts', 0.5),
      candidate(18, 'src/w.test.ts', 0.5),
      ...Array.from({ length: 10 }, (_, index) => candidate(19 + index, `src/f${index}.ts`, 0.1)),
    ];
    const stored = new Map(candidates.map((c) => [c.path, c.path.startsWith('docs/') || c.path === 'src/u.ts' ? 'docs' : 'implementation'] as const));
    const lead = { ...weights, depth: 1 };
    const roles = await rolesForPriors(catalogOf(stored), candidates, new Set(), lead);
    expect(roles.get('src/u.ts')).toBe('docs');
    const ranked = applyRolePriors(candidates, roles, new Set(), lead);
    expect(ranked[0]?.path).toBe('src/w.test.ts');
    expect(ranked).toEqual(applyRolePriors(candidates, new Map(stored), new Set(), lead));
  });

  it('reads the roles of the lead and its lenders, not of every candidate', async () => {
    // 300 candidates of 300 files, scores falling from 1 to 0.4: one test names a deep file as its subject.
    const candidates = Array.from({ length: 300 }, (_, index) => candidate(index + 1, index === 7 ? 'src/deep.test.ts' : index === 290 ? 'src/deep.ts' : `src/f${index}.ts`, 1 - index * 0.002));
    const stored = new Map(candidates.map((c) => [c.path, roleOf(c.path)]));
    const catalog = catalogOf(stored);
    const roles = await rolesForPriors(catalog, candidates, new Set(), weights);
    expect(catalog.read.length).toBeLessThan(30);
    expect(roles.get('src/deep.test.ts')).toBe('test');
    expect(roles.get('src/deep.ts')).toBe('implementation');
    expect(applyRolePriors(candidates, roles, new Set(), weights)).toEqual(applyRolePriors(candidates, new Map(stored), new Set(), weights));
  });

  it('reads further while a file not read yet could still score into the lead', async () => {
    // The first 20 files are docs (penalised by a quarter); files past them score close enough to join the lead.
    const candidates = Array.from({ length: 100 }, (_, index) => candidate(index + 1, index < 20 ? `docs/d${index}.md` : `src/f${index}.ts`, 1 - index * 0.001));
    const stored = new Map(candidates.map((c) => [c.path, roleOf(c.path)]));
    const catalog = catalogOf(stored);
    const roles = await rolesForPriors(catalog, candidates, new Set(), weights);
    expect(catalog.read.length).toBeGreaterThan(20);
    const ranked = applyRolePriors(candidates, roles, new Set(), weights);
    expect(ranked.slice(0, 5).map((c) => c.path)).toEqual(['src/f20.ts', 'src/f21.ts', 'src/f22.ts', 'src/f23.ts', 'src/f24.ts']);
    expect(ranked).toEqual(applyRolePriors(candidates, new Map(stored), new Set(), weights));
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
