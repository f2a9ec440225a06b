import { describe, expect, it } from 'vitest';
import { chunkFile } from './chunk-file.js';
import type { ChunkDraft } from './spec.js';
import { estimateTokens } from './token-count.js';

const base = { path: 'doc', tokenBudget: 500, windowLines: 100, windowOverlap: 10 };

describe('markdown chunker', () => {
  const markdown = [
    '# Guide', // 1
    '', // 2
    '## Install', // 3
    '', // 4
    'Run the installer.', // 5
    '', // 6
    '### Linux', // 7
    '', // 8
    '```bash', // 9
    '# not a heading, a shell comment', // 10
    'apt install thing', // 11
    '```', // 12
    '', // 13
    'Usage', // 14
    '=====', // 15
    '', // 16
    'Call it.', // 17
  ].join('\n');

  it('keeps heading paths, folds empty headings forward, ignores # in fences, reads setext', async () => {
    const chunks = await chunkFile({ ...base, text: markdown, language: 'markdown' });
    expect(chunks.map((c) => [c.startLine, c.endLine, c.headingPath, c.symbol])).toEqual([
      [1, 5, ['Guide', 'Install'], 'Install'],
      [7, 12, ['Guide', 'Install', 'Linux'], 'Linux'],
      [14, 17, ['Usage'], 'Usage'],
    ]);
    expect(chunks.every((c) => c.kind === 'section')).toBe(true);
  });

  it('splits a long section at paragraph breaks, keeping its heading path', async () => {
    const paragraphs = Array.from({ length: 12 }, (_, index) => `Paragraph ${index} ${'word '.repeat(40)}`).join('\n\n');
    const text = `# Big\n\n${paragraphs}\n`;
    const chunks = await chunkFile({ ...base, text, language: 'markdown', tokenBudget: 120 });
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((c) => c.headingPath?.[0] === 'Big')).toBe(true);
    const lines = text.split('\n');
    for (const c of chunks) expect(c.text).toBe(lines.slice(c.startLine - 1, c.endLine).join('\n'));
  });

  it('gives text before the first heading the document title', async () => {
    const chunks = await chunkFile({ ...base, text: 'Intro text.\n\n# Part\n\nBody.\n', language: 'markdown', title: 'Manual' });
    expect(chunks.map((c) => c.headingPath)).toEqual([['Manual'], ['Manual', 'Part']]);
  });
});

describe('line windows', () => {
  it('cuts windows with overlap and no tiny trailing duplicate', async () => {
    const text = Array.from({ length: 250 }, (_, index) => `value_${index} = ${index}`).join('\n');
    const chunks = await chunkFile({ ...base, text, language: 'yaml', tokenBudget: 5000 });
    expect(chunks.map((c) => [c.startLine, c.endLine])).toEqual([
      [1, 100],
      [91, 190],
      [181, 250],
    ]);
    expect(chunks.every((c) => c.kind === 'window')).toBe(true);
  });

  it('shrinks windows to the token budget', async () => {
    const text = Array.from({ length: 50 }, () => 'alpha beta gamma delta epsilon zeta eta theta').join('\n');
    const chunks = await chunkFile({ ...base, text, language: 'yaml', tokenBudget: 60 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) expect(estimateTokens(c.text)).toBeLessThanOrEqual(60);
  });

  it('returns nothing for blank files', async () => {
    expect(await chunkFile({ ...base, text: '\n\n   \n', language: 'yaml' })).toEqual([]);
  });
});

describe('titled documents', () => {
  it('packs paragraphs under the budget and carries the title', async () => {
    const text = Array.from({ length: 6 }, (_, index) => `Sentence ${index} about proteins. `.repeat(20)).join('\n\n');
    const chunks = await chunkFile({ ...base, text, language: 'text', title: 'Protein folding', tokenBudget: 200 });
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((c) => c.headingPath?.[0] === 'Protein folding' && c.kind === 'document')).toBe(true);
  });

  it('cuts one huge paragraph at sentence ends', async () => {
    const text = 'This is a sentence about cells and their membranes. '.repeat(60).trim();
    const chunks = await chunkFile({ ...base, text, language: 'text', title: 'Cells', tokenBudget: 100 });
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      expect(estimateTokens(c.text)).toBeLessThanOrEqual(110);
      expect(c.text.endsWith('.')).toBe(true);
    }
  });
});

describe('properties over varied inputs', () => {
  // A deterministic pseudo-random generator, so failures reproduce.
  function random(seed: number) {
    let state = seed;
    return () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state / 2147483648;
    };
  }
  const words = ['function', 'return', 'value', 'x', '{', '}', '(', ')', ';', 'if', 'class', 'def', '#', '##', 'const', '=', '"text"', '// note', '    ', '\t'];

  function randomText(next: () => number): string {
    const lines: string[] = [];
    const count = Math.floor(next() * 300);
    for (let line = 0; line < count; line++) {
      const length = next() < 0.05 ? 200 : Math.floor(next() * 12);
      lines.push(Array.from({ length }, () => words[Math.floor(next() * words.length)]).join(' '));
    }
    return lines.join(next() < 0.2 ? '\r\n' : '\n');
  }

  it('every chunk is an exact slice of whole lines and stays near the budget', async () => {
    const next = random(42);
    for (let round = 0; round < 40; round++) {
      const text = randomText(next);
      const language = ['typescript', 'python', 'markdown', 'yaml', 'go', 'text'][round % 6] as string;
      const budget = 40 + Math.floor(next() * 400);
      const chunks: ChunkDraft[] = await chunkFile({ ...base, text, language, tokenBudget: budget });
      const lines = text.split('\n');
      for (const c of chunks) {
        expect(c.startLine).toBeGreaterThanOrEqual(1);
        expect(c.endLine).toBeGreaterThanOrEqual(c.startLine);
        const slice = lines.slice(c.startLine - 1, c.endLine).join('\n');
        if (c.startLine === c.endLine && estimateTokens(slice) > budget) {
          expect(slice).toContain(c.text.trim()); // a single over-long line is cut by characters
        } else if (c.kind !== 'document') {
          expect(c.text).toBe(slice);
        }
        expect(estimateTokens(c.text), `${language} budget ${budget} kind ${c.kind} lines ${c.startLine}-${c.endLine}`).toBeLessThanOrEqual(Math.ceil(budget * 1.2) + 2);
      }
    }
  });
});
