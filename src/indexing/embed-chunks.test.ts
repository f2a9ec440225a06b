import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createStaticEmbedder } from '../embed/static/static-embedder.js';
import { detectLanguage } from '../sources/language.js';
import { prepareRecord } from '../memory/records.js';
import { TermTable } from '../lexical/codec.js';
import { prepareFile, type PrepareFileInput } from './prepare-file.js';
import { EMBEDDED_FIELDS, embeddingInputOf } from './prepare-chunks.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const chunking = { tokenBudget: 500, windowLines: 100, windowOverlap: 10 };

describe('embedding from the tokens the indexer already has', () => {
  it('gives the static model bit-identical vectors from the term counts as from the text, for code, markdown, titled documents and non-ASCII text; memory records embed their text', async () => {
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
      const values = chunks.map(embeddingInputOf);
      const fromText = await model.doEmbed({ values, purpose: 'document' });
      const counted = chunks.filter((chunk) => chunk.embedsFromTerms);
      const fromTerms = await model.doEmbedTermStats?.({ stats: counted.map((chunk) => chunk.write.termStats), fields: EMBEDDED_FIELDS, purpose: 'document' });
      expect(fromTerms?.embeddings.length).toBe(counted.length);
      counted.forEach((chunk, index) => expect(Array.from(fromTerms?.embeddings[index] ?? [])).toEqual(Array.from(fromText.embeddings[chunks.indexOf(chunk)] ?? [])));
      compared += counted.length;
    }
    // A record's counts hold its date and context words, which its embedding input lacks.
    expect(batches.at(-1)?.every((chunk) => !chunk.embedsFromTerms)).toBe(true);
    expect(compared).toBeGreaterThan(100);
  });
});
