import { describe, expect, it } from 'vitest';
import { embedderInputOf } from './attach-vectors.js';
import { embeddingInputOf, prepareChunks } from './prepare-chunks.js';

const draft = { startLine: 3, endLine: 5, kind: 'code' as const, text: 'export function flush() {\n  run();\n}', headingPath: ['Scheduler', 'flush'] };

describe('rebuilding the embedder input of a stored chunk', () => {
  it('gives back exactly what phase 1 would have embedded, for files and for documents', () => {
    for (const pathIsContent of [true, false]) {
      const [prepared] = prepareChunks([draft], { path: 'src/scheduler.ts', language: 'typescript', pathIsContent });
      const record = { path: 'src/scheduler.ts', headingPath: prepared!.write.headingPath ?? [], text: prepared!.write.text, contentHash: prepared!.write.contentHash };
      expect(embedderInputOf(record)).toBe(embeddingInputOf(prepared!));
    }
  });

  it('refuses a chunk its content hash does not confirm (the file is then left for a full run)', () => {
    const [prepared] = prepareChunks([draft], { path: 'src/scheduler.ts', language: 'typescript', pathIsContent: true });
    expect(embedderInputOf({ path: 'src/other.ts', headingPath: ['Scheduler', 'flush'], text: prepared!.write.text, contentHash: prepared!.write.contentHash })).toBeUndefined();
    expect(embedderInputOf({ path: 'src/scheduler.ts', headingPath: [], text: prepared!.write.text, contentHash: prepared!.write.contentHash })).toBeUndefined();
  });
});
