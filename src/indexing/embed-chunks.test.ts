import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createStaticEmbedder } from '../embed/static/static-embedder.js';
import { detectLanguage } from '../sources/language.js';
import { prepareRecord } from '../memory/records.js';
import { TermTable } from '../lexical/codec.js';
import { prepareFile, type PrepareFileInput } from './prepare-file.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const chunking = { tokenBudget: 500, windowLines: 100, windowOverlap: 10 };

describe('embedding from the tokens the indexer already has', () => {
  it('gives the static model bit-identical vectors to embedding the text again, for code, markdown, titled documents, non-ASCII text and memory records', async () => {
    const model = createStaticEmbedder();
    const files = [...readdirSync(join(root, 'src/indexing')).map((name) => `src/indexing/${name}`), ...readdirSync(join(root, 'docs')).map((name) => `docs/${name}`)].filter(
      (path) => path.endsWith('.ts') || path.endsWith('.md'),
    );
    const inputs: PrepareFileInput[] = files.map((path) => ({ path, text: readFileSync(join(root, path), 'utf8'), language: detectLanguage(path), chunking, pathIsContent: true }));
    inputs.push(
      { path: 'doc-1', text: '# Über café\n\nNaïve façade — 東京 straße ﬁle Ⅻ\n\n## Ünïcödé section\n\ngetUserName über_alles', language: 'markdown', chunking, pathIsContent: false },
      { path: 'doc-2', text: 'A claim about proteins and café.', language: 'text', chunking, pathIsContent: false, title: 'Ärzte title' },
    );
    const terms = new TermTable();
    const batches = await Promise.all(inputs.map(async (input) => (await prepareFile(input, terms)).chunks));
    // Memory records change their lexical fields after preparation (dates, context): their embedding input is left alone.
    batches.push(
      await prepareRecord({
        id: 'r1',
        namespace: 'ops/db',
        kind: 'note',
        text: 'The staging database port is 5432',
        time: Date.UTC(2024, 0, 1),
        updatedAt: 0,
        mergedCount: 0,
        context: 'deploy checklist',
      }),
    );
    let compared = 0;
    for (const chunks of batches) {
      const values = chunks.map((chunk) => chunk.embeddingInput);
      const tokens = chunks.map((chunk) => chunk.embeddingTokens as string[]);
      const [fromText, fromTokens] = [await model.doEmbed({ values, purpose: 'document' }), await model.doEmbedTokens?.({ tokens, purpose: 'document' })];
      expect(fromTokens?.embeddings.length).toBe(values.length);
      fromText.embeddings.forEach((vector, index) => expect(Array.from(fromTokens?.embeddings[index] ?? [])).toEqual(Array.from(vector)));
      compared += values.length;
    }
    expect(compared).toBeGreaterThan(100);
  });
});
