// One of many processes that open the same brand-new store at the same moment: it loads
// the built library, reports ready, waits for the parent's "go", then writes its share.
const [distIndex, root, store, worker, perProcess] = process.argv.slice(2);
const count = Number(perProcess);
const library = await import(distIndex);

process.send({ type: 'ready' });
await new Promise((resolve) => process.once('message', resolve));

try {
  const loci = library.createLoci({ root, store, config: { embedder: 'none' } });
  const documents = Array.from({ length: count }, (_, index) => ({ id: `doc-${worker}-${index}`, text: `document ${index} written by process ${worker}` }));
  const notes = Array.from({ length: count }, (_, index) => ({ id: `note-${worker}-${index}`, kind: 'note', namespace: 'race', text: `note ${index} from process ${worker}` }));
  const writeDocuments = () => loci.indexDocuments(documents);
  const writeNotes = async () => (await loci.memory()).addMany(notes, { dedupe: false });
  // Half start with memory.db, half with index.db, so both files are created in a crowd.
  for (const write of Number(worker) % 2 === 0 ? [writeNotes, writeDocuments] : [writeDocuments, writeNotes]) await write();
  await loci.close();
  process.exit(0);
} catch (error) {
  process.stderr.write(`${error?.code ?? ''} ${error?.message ?? String(error)}\n`);
  process.exit(1);
}
