// The prepare worker: chunks files and tokenizes their chunks on its own thread, so the
// thread that indexes embeds and writes one group while the next is being prepared. Started
// by preparer.ts for big runs; answers each request with the prepared file or the error.
// The run's terms get their list indexes here; each answer carries the terms added since the
// previous one, and its chunks' statistics travel without the list (the other side keeps a copy).
import { parentPort } from 'node:worker_threads';
import { TermTable } from '../lexical/codec.js';
import { prepareFile, type PreparedFile } from './prepare-file.js';
import type { PrepareReply, PrepareRequest } from './preparer.js';

const port = parentPort;
if (!port) throw new Error('prepare-worker.js runs as a worker thread; preparer.ts starts it.');
const terms = new TermTable();
/** The file as it crosses: its statistics without the list they point into. */
function withoutTable(file: PreparedFile): PreparedFile {
  for (const chunk of file.chunks) (chunk.write.termStats as { table?: unknown }).table = undefined;
  return file;
}
/**
 * One file at a time, in the order asked: started together, every file's steps interleaved
 * (prepareFile awaits), so the first answer came with the last (2.6 s for 1,024 files handed
 * over at once), and a run's first commit waited for all of them.
 */
let queue: Promise<void> = Promise.resolve();
port.on('message', (request: PrepareRequest) => {
  queue = queue.then(() =>
    prepareFile(request.input, terms).then(
      // Drained right before posting: answers leave in the order their terms were drained.
      (file) => port.postMessage({ id: request.id, file: withoutTable(file), terms: terms.drain() } satisfies PrepareReply),
      (error: unknown) => port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error), terms: terms.drain() } satisfies PrepareReply),
    ),
  );
});
