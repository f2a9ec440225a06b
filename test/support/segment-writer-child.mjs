// Writes big synthetic segment files to one path, over and over, until killed: the
// kill -9 test (test/e2e/segments.test.ts) stops it in the middle of a write.
// Usage: node segment-writer-child.mjs FILE ROWS
import { sortTerms, writeSegment } from '../../dist/store/segment-file.js';

const [file, rowsArg] = process.argv.slice(2);
const rows = Number(rowsArg);
const perRow = 40;
const terms = 5000;
const termOffsets = Uint32Array.from({ length: rows + 1 }, (_, row) => row * perRow);
const termIds = new Uint32Array(rows * perRow);
const weighted = new Float32Array(rows * perRow).fill(1);
for (let row = 0; row < rows; row++) for (let entry = 0; entry < perRow; entry++) termIds[row * perRow + entry] = ((row * 7 + entry * 131) % terms) + 1;
for (let row = 0; row < rows; row++) termIds.subarray(row * perRow, (row + 1) * perRow).sort();
// Postings: invert the rows.
const counts = new Uint32Array(terms + 1);
for (const id of termIds) counts[id]++;
const postingTerms = [];
const postingOffsets = [0];
for (let id = 1; id <= terms; id++)
  if (counts[id] > 0) {
    postingTerms.push(id);
    postingOffsets.push(postingOffsets.at(-1) + counts[id]);
  }
const at = new Map(postingTerms.map((id, index) => [id, postingOffsets[index]]));
const postingSlots = new Int32Array(termIds.length);
for (let row = 0; row < rows; row++)
  for (let entry = 0; entry < perRow; entry++) {
    const id = termIds[row * perRow + entry];
    const position = at.get(id);
    postingSlots[position] = row;
    at.set(id, position + 1);
  }
const postingWeighted = new Float32Array(termIds.length).fill(1);
const postingOffsetArray = Uint32Array.from(postingOffsets);
const lexical = {
  rowIds: Float64Array.from({ length: rows }, (_, row) => row + 1),
  lengths: new Float64Array(rows).fill(perRow),
  termOffsets,
  rowTerms: (row) => ({ termIds: termIds.subarray(termOffsets[row], termOffsets[row + 1]), weighted: weighted.subarray(termOffsets[row], termOffsets[row + 1]) }),
  metaIndex: new Uint32Array(rows),
  metas: [{ path: 'a.ts', language: 'typescript' }],
  postingTerms: Uint32Array.from(postingTerms),
  postingOffsets: postingOffsetArray,
  postings: (index) => ({
    slots: postingSlots.subarray(postingOffsetArray[index], postingOffsetArray[index + 1]),
    weighted: postingWeighted.subarray(postingOffsetArray[index], postingOffsetArray[index + 1]),
  }),
  postingMax: new Float32Array(postingTerms.length).fill(1),
};
const lexicon = sortTerms(postingTerms.map((id) => [`term${id}`, id]));
const contents = (watermark) => ({
  header: { storeInstance: 'kill-test', embedderId: 'none', dimensions: 0, weights: { path: 1, symbols: 1, heading: 1, body: 1 }, watermark, lastLexiconId: terms },
  lexical,
  vectors: undefined,
  lexicon,
  pending: [],
});
process.stdout.write('ready\n');
for (let watermark = rows; ; watermark++) writeSegment(file, contents(watermark));
