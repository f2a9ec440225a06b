import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLoci } from '../../engine/create-loci.js';
import type { ChunkRecord } from '../../store/spec.js';
import type { FusionCandidate } from '../fusion.js';
import { computeFeatures, featureNames } from './features.js';
import { languageHints } from './query-language.js';
import { loadRanker, parseRanker } from './model.js';
import { rerankCandidates } from './rank.js';

describe('language names in queries', () => {
  it('become hints when the index holds that language and other words remain', () => {
    const hints = languageHints(
      'Python check if a variable is iterable',
      ['python', 'check', 'variabl', 'iter'],
      new Map([
        ['python', 40],
        ['markdown', 60],
      ]),
    );
    expect(hints).toEqual({ terms: ['check', 'variabl', 'iter'], languages: ['python'], text: 'check if a variable is iterable' });
  });

  it('stay search terms when the index has no such code, or nothing else is asked', () => {
    expect(languageHints('python tutorial', ['python', 'tutori'], new Map([['markdown', 10]])).terms).toEqual(['python', 'tutori']);
    expect(languageHints('python', ['python'], new Map([['python', 10]])).terms).toEqual(['python']);
  });

  it('stay search terms when that language is a sliver of the index (the name is then the subject)', () => {
    // pallets/click: one shell script among Python files; "bash" is what the question is about.
    const click = new Map([
      ['bash', 2],
      ['markdown', 300],
      ['python', 1000],
    ]);
    expect(languageHints('how does shell completion work for bash', ['shell', 'complet', 'work', 'bash'], click)).toEqual({
      terms: ['shell', 'complet', 'work', 'bash'],
      languages: [],
      text: 'how does shell completion work for bash',
    });
    // At the threshold it is a hint: 5 of 100 chunks.
    expect(
      languageHints(
        'deploy script in bash',
        ['deploi', 'script', 'bash'],
        new Map([
          ['bash', 5],
          ['python', 95],
        ]),
      ).languages,
    ).toEqual(['bash']);
    expect(
      languageHints(
        'deploy script in bash',
        ['deploi', 'script', 'bash'],
        new Map([
          ['bash', 4],
          ['python', 96],
        ]),
      ).languages,
    ).toEqual([]);
  });

  it('cover a language family (JavaScript questions accept TypeScript code)', () => {
    const hints = languageHints(
      'sort an array in js',
      ['sort', 'arrai', 'js'],
      new Map([
        ['typescript', 30],
        ['tsx', 10],
      ]),
    );
    expect(hints.languages.sort()).toEqual(['tsx', 'typescript']);
    expect(hints.text).toBe('sort an array in');
    // The family's share counts together: 3 + 3 of 100 chunks pass where neither would alone.
    expect(
      languageHints(
        'sort an array in js',
        ['sort', 'arrai', 'js'],
        new Map([
          ['typescript', 3],
          ['tsx', 3],
          ['python', 94],
        ]),
      ).languages.sort(),
    ).toEqual(['tsx', 'typescript']);
  });
});

describe('ranker model files', () => {
  const valid = { format: 'loci-ranker', version: 1, name: 't', depth: 5, groups: { code: { bias: 0.5, weights: { fused: 2, proximity: 1 } }, prose: { bias: 0, weights: {} } } };

  it('scores bias + Σ weight × feature, per group, and explains every feature', () => {
    const ranker = parseRanker(JSON.stringify(valid), 't.json');
    const features = Float64Array.from(featureNames, (name) => (name === 'fused' ? 0.25 : name === 'proximity' ? 1 : 0));
    expect(ranker.score(features, 'code')).toBeCloseTo(0.5 + 0.5 + 1);
    expect(ranker.score(features, 'prose')).toBe(0);
    const explanation = ranker.explain(features, 'code');
    expect(explanation.features.fused).toEqual({ value: 0.25, weight: 2, contribution: 0.5 });
    expect(Object.keys(explanation.features)).toEqual([...featureNames]);
  });

  it('refuses broken files with what is wrong and how to fix it', () => {
    expect(() => parseRanker('{', 'x.json')).toThrow(/x\.json is not valid JSON/);
    const unknown = { ...valid, groups: { ...valid.groups, code: { bias: 0, weights: { bm42: 1 } } } };
    expect(() => parseRanker(JSON.stringify(unknown), 'x.json')).toThrow(/groups\.code\.weights/);
    expect(() => parseRanker(JSON.stringify({ ...valid, version: 2 }), 'x.json')).toThrow(/version/);
    expect(() => loadRanker('/nonexistent/ranker.json')).toThrow(/Cannot read the ranker model/);
    expect(() => loadRanker('defualt')).toThrow(/Did you mean "default"\?/);
  });

  it('ships a default model that knows every feature it weighs, and "none" turns it off', () => {
    const ranker = loadRanker('default');
    expect(ranker?.name).toBe('loci-ranker-v1');
    expect(ranker?.depth).toBeGreaterThanOrEqual(10);
    expect(loadRanker('none')).toBeUndefined();
  });
});

describe('features', () => {
  const record = (path: string, text: string, symbol?: string): ChunkRecord => ({
    rowId: path.length,
    chunkId: path,
    contentHash: `hash:${path}`,
    path,
    startLine: 1,
    endLine: 1,
    language: 'python',
    kind: 'code',
    headingPath: [],
    symbols: symbol ? [symbol] : [],
    text,
    ...(symbol ? { symbol } : {}),
  });
  const candidate = (rowId: number, path: string, lexical: number, vector?: number): FusionCandidate => ({
    rowId,
    path,
    score: lexical,
    signals: { lexical, ...(vector === undefined ? {} : { vector }) },
    contributions: {},
  });

  it('measures coverage by field, proximity, ranks and language from the chunk itself', () => {
    const statistics = {
      chunks: 100,
      frequencies: new Map([
        ['read', 9],
        ['csv', 1],
      ]),
    };
    const [near, far] = computeFeatures({ terms: ['read', 'csv'], sequence: ['read', 'csv'], languages: new Set(['python']), statistics }, [
      { candidate: candidate(1, 'io/csv.py', 2, 0.5), record: record('io/csv.py', 'def read_csv(path):\n    """Read a CSV file."""', 'read_csv') },
      { candidate: candidate(2, 'b.py', 4), record: record('b.py', 'read the manual first, then later maybe a csv') },
    ]);
    const value = (vector: Float64Array | undefined, name: (typeof featureNames)[number]) => vector?.[featureNames.indexOf(name)];
    const idfRead = Math.log((100 - 9 + 0.5) / (9 + 0.5));
    const idfCsv = Math.log((100 - 1 + 0.5) / (1 + 0.5));
    expect(value(near, 'symbolCoverage')).toBeCloseTo(1);
    expect(value(near, 'pathCoverage')).toBeCloseTo(idfCsv / (idfRead + idfCsv));
    expect(value(near, 'complete')).toBe(1);
    expect(value(near, 'proximity')).toBe(1);
    expect(value(far, 'proximity')).toBe(0);
    expect(value(far, 'lexical')).toBe(1);
    expect(value(near, 'lexical')).toBe(0.5);
    expect(value(near, 'vectorRank')).toBe(1);
    expect(value(far, 'vectorRank')).toBe(0);
    expect(value(far, 'vector')).toBe(0.5); // absent: the lowest candidate's cosine
    expect(value(near, 'languageMatch')).toBe(1);
  });

  it('marks files that import one of the three best files, or that one of them imports', () => {
    const statistics = { chunks: 10, frequencies: new Map<string, number>() };
    const paths = ['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/uses-a.ts', 'src/used-by-b.ts', 'src/unrelated.ts'];
    const imports = new Map([
      ['src/b.ts', ['src/used-by-b.js']],
      ['src/c.ts', ['src/a']],
      ['src/uses-a.ts', ['src/a.js']],
    ]);
    const vectors = computeFeatures(
      { terms: [], sequence: [], languages: new Set(), statistics, imports },
      paths.map((path, index) => ({ candidate: candidate(index + 1, path, 10 - index), record: record(path, 'x') })),
    );
    const neighbour = vectors.map((vector) => vector[featureNames.indexOf('importNeighbour')]);
    expect(neighbour).toEqual([1, 0, 1, 1, 1, 0]);
  });

  it("counts each file's chunks in the first 100 fused candidates (fileHits), and a file with more hits can win", async () => {
    // b.ts has one strong chunk; a.ts has three weaker ones, the third at fused rank 100; c.ts's two sit at ranks 101 and 102.
    const fused: FusionCandidate[] = [candidate(1, 'b.ts', 9), candidate(2, 'a.ts', 8), candidate(3, 'a.ts', 7)];
    for (let index = 0; index < 96; index++) fused.push(candidate(10 + index, `filler-${index}.ts`, 5 - index / 100));
    fused.push(candidate(4, 'a.ts', 3), candidate(5, 'c.ts', 2), candidate(6, 'c.ts', 1));
    const records = new Map(fused.map((entry) => [entry.rowId, record(entry.path, 'x')] as const));
    const model = { format: 'loci-ranker', version: 1, name: 'hits', depth: 200, groups: { code: { bias: 0, weights: { fused: 0.1, fileHits: 1 } }, prose: { bias: 0, weights: {} } } };
    const out = await rerankCandidates({
      ranker: parseRanker(JSON.stringify(model), 'hits.json'),
      fused,
      files: true,
      explain: true,
      query: { terms: [], sequence: [], languages: new Set(), statistics: { chunks: 10, frequencies: new Map() } },
      getChunks: async (rowIds) => rowIds.map((rowId) => ({ ...(records.get(rowId) as ChunkRecord), rowId })),
      getCatalogEntries: async () => new Map(),
    });
    const hits = (rowId: number) => out.explanations.get(rowId)?.features.fileHits?.value;
    expect(hits(2)).toBeCloseTo(Math.log(3));
    expect(hits(1)).toBe(0);
    expect(hits(5)).toBe(0); // both its chunks are below the first 100
    expect(out.ranked[0]?.path).toBe('a.ts');
    expect(out.ranked.filter((entry) => entry.path === 'a.ts').map((entry) => entry.rowId)).toEqual([2, 3, 4]);
  });
});

describe('learned ranking in search', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'loci-rerank-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const documents = [
    { id: 'notes.md', text: '# Python notes\n\nPython makes it easy to check a variable. Python is iterable friendly, python python.' },
    {
      id: 'iterable.py',
      text: 'def is_iterable(value):\n    """Check whether a variable can be iterated."""\n    try:\n        iter(value)\n        return True\n    except TypeError:\n        return False',
    },
    { id: 'other.py', text: 'def check_file(path):\n    """Check that a file exists."""\n    return os.path.exists(path)' },
  ];

  it('reorders by the model, explains it, and ranks the same on the warm and the cold path', async () => {
    const store = join(root, 'store');
    const warm = createLoci({ root, store });
    await warm.indexDocuments(documents);
    const query = 'python check if a variable is iterable';
    const response = await warm.search(query, { explain: true, topK: 3 });
    expect(response.results[0]?.path).toBe('iterable.py');
    const top = response.results[0]!;
    const logit = top.ranking!.bias + Object.values(top.ranking!.features).reduce((sum, feature) => sum + feature.contribution, 0);
    expect(top.score).toBeCloseTo(loadRanker('default')!.calibrate(logit));
    const lexical = await warm.search(query, { explain: true, mode: 'lexical' });
    expect(lexical.results.every((result) => result.ranking === undefined)).toBe(true);
    expect(top.ranking?.features.languageMatch?.value).toBe(1);
    expect(response.results.map((result) => result.score)).toEqual([...response.results.map((result) => result.score)].sort((a, b) => b - a));
    const cold = createLoci({ root, store, inMemory: false });
    const coldResponse = await cold.search(query, { explain: true, topK: 3 });
    expect(coldResponse.results.map((result) => result.path)).toEqual(response.results.map((result) => result.path));
    coldResponse.results.forEach((result, index) => expect(result.score).toBeCloseTo(response.results[index]!.score, 8));
    await cold.close();
    await warm.close();
  });

  it('"none" keeps the fused order; thresholds apply to the fused score; a bad model file is refused', async () => {
    const store = join(root, 'store');
    const plain = createLoci({ root, store, config: { search: { ranker: 'none' } } });
    await plain.indexDocuments(documents);
    const response = await plain.search('check variable', { explain: true });
    expect(response.results.every((result) => result.ranking === undefined)).toBe(true);
    await plain.close();
    const ranked = createLoci({ root, store });
    const skipped = await ranked.search('check variable', { explain: true, ranker: false });
    expect(skipped.results.map((result) => [result.path, result.score])).toEqual(response.results.map((result) => [result.path, result.score]));
    const best = (await ranked.search('check variable')).results;
    expect((await ranked.search('check variable', { threshold: 1e9 })).results).toEqual([]);
    expect(best.length).toBeGreaterThan(0);
    await ranked.close();
    writeFileSync(join(root, 'bad.json'), '{"format":"loci-ranker"}');
    const broken = createLoci({ root, store, config: { search: { ranker: join(root, 'bad.json') } } });
    await expect(broken.search('check variable')).rejects.toThrow(/not a loci-ranker v1 model/);
    await broken.close();
  });
});
