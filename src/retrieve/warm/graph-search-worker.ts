// The graph search thread (graph-search-thread.ts): answers the HNSW part of vector searches
// from the same memory-mapped graph file the calling thread maps, so a hybrid search walks the
// graph while the calling thread scores BM25. It only ever reads a file the caller named and
// identified; a file that is not that one (replaced, grown, foreign) is refused, never searched.
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { graphFileKey, type GraphSearchReply, type GraphSearchRequest, type MappedGraphFile } from './mapped-graph-file.js';
import { createGraph, loadUsearch, mapIdentified, type UsearchIndex } from './usearch-graph.js';

const port = parentPort;
if (!port) throw new Error('graph-search-worker runs as a worker thread');
/** The caller's reply port (graph-search-thread.ts reads it without waiting for its event loop). */
const replies: MessagePort = (workerData as { replies: MessagePort }).replies;

let open: { key: string; graph: UsearchIndex } | undefined;

function graphOf(file: MappedGraphFile): UsearchIndex {
  const key = graphFileKey(file);
  if (open?.key === key) return open.graph;
  const module = loadUsearch();
  if (!module) throw new Error('usearch is not installed');
  const graph = createGraph(module, file.dimensions, file);
  // Only the file the caller identified, whole (mapIdentified: the same rule as the caller's).
  const outcome = mapIdentified(graph, file);
  if (outcome !== 'mapped') throw new Error(`the graph file ${outcome}`);
  // One file at a time: the caller moves to a new one only when its own graph changed.
  open = { key, graph };
  return graph;
}

port.on('message', (request: GraphSearchRequest) => {
  let reply: GraphSearchReply;
  try {
    const { keys, distances } = graphOf(request.file).search(request.vector, request.k, 0);
    reply = { id: request.id, keys, distances };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  replies.postMessage(reply, reply.keys ? [reply.keys.buffer as ArrayBuffer, reply.distances.buffer as ArrayBuffer] : []);
});

// usearch loads before the first request, so the caller sends none until it answers quickly;
// a file named at the start (GraphSearchThread.prepare) is mapped first, its searches waiting
// in the queue behind it. One that cannot be mapped is refused at its first search, as any.
loadUsearch();
const prepared = (workerData as { prepare?: MappedGraphFile }).prepare;
if (prepared) {
  try {
    graphOf(prepared);
  } catch {
    // refused when searched
  }
}
replies.postMessage({ ready: true } satisfies GraphSearchReply);
