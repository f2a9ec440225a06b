// The prepare worker: chunks files and tokenizes their chunks on its own thread, so the
// thread that indexes embeds and writes one group while the next is being prepared. Started
// by preparer.ts for big runs; answers each request with the prepared file or the error.
import { parentPort } from 'node:worker_threads';
import { prepareFile } from './prepare-file.js';
import type { PrepareReply, PrepareRequest } from './preparer.js';

const port = parentPort;
if (!port) throw new Error('prepare-worker.js runs as a worker thread; preparer.ts starts it.');
port.on('message', (request: PrepareRequest) => {
  prepareFile(request.input).then(
    (file) => port.postMessage({ id: request.id, file } satisfies PrepareReply),
    (error: unknown) => port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies PrepareReply),
  );
});
