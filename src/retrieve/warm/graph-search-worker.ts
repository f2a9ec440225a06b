// The graph search thread (graph-search-thread.ts): answers the HNSW part of vector searches
// from the same memory-mapped graph file the calling thread maps, so a hybrid search walks the
// graph while the calling thread scores BM25. It only ever reads a file the caller named and
// identified; a file that is not that one (replaced, grown, foreign) is refused, never searched.
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { sameFile, type GraphSearchReply, type GraphSearchRequest, type MappedGraphFile } from './mapped-graph-file.js';
import { createGraph, loadUsearch, type UsearchIndex } from './usearch-graph.js';

const port = parentPort;
if (!port) throw new Error('graph-search-worker runs as a worker thread');
/** The caller's reply port (graph-search-thread.ts reads it without waiting for its event loop). */
const replies: MessagePort = (workerData as { replies: MessagePort }).replies;

let open: { key: string; graph: UsearchIndex } | undefined;

/** Everything that tells one mapped file (and the graph's shape) from another. */
function fileKey(file: MappedGraphFile): string {
  return [file.path, file.dev, file.ino, file.size, file.mtimeMs, file.keys, file.dimensions, file.connectivity, file.expansionAdd, file.expansionSearch].join('\0');
}

function graphOf(file: MappedGraphFile): UsearchIndex {
  const key = fileKey(file);
  if (open?.key === key) return open.graph;
  const module = loadUsearch();
  if (!module) throw new Error('usearch is not installed');
  const graph = createGraph(module, file.dimensions, file);
  if (!graph.view) throw new Error('this usearch cannot map a graph file');
  // The file must be the one the caller mapped, before and after mapping it here.
  if (!sameFile(file)) throw new Error('the graph file changed');
  graph.view(file.path);
  if (!sameFile(file) || graph.size() !== file.keys) throw new Error('the graph file changed');
  // One file at a time: the caller moves to a new one only when its own graph changed.
  open = { key, graph };
  return graph;
}

port.on('message', (request: GraphSearchRequest) => {
  let reply: GraphSearchReply;
  try {
    const { keys } = graphOf(request.file).search(request.vector, request.k, 0);
    reply = { id: request.id, keys };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  replies.postMessage(reply, reply.keys ? [reply.keys.buffer as ArrayBuffer] : []);
});

// usearch loads before the first request, so the caller sends none until it answers quickly.
loadUsearch();
replies.postMessage({ ready: true } satisfies GraphSearchReply);
