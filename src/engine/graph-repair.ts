import { existsSync } from 'node:fs';
import { BackgroundGraph } from '../indexing/background-graph.js';
import { defaultHnswOptions } from '../retrieve/warm/exact-or-graph-vector-index.js';
import { graphBeingBuilt } from '../retrieve/warm/graph-builds.js';
import { dropUnreadableGraph } from '../retrieve/warm/usearch-graph.js';
import type { WarmIndex } from '../retrieve/warm/warm-index.js';
import type { Store } from '../store/spec.js';

/**
 * A long-lived engine's vector graph when the saved one is missing or was found damaged: built
 * on the graph worker (BackgroundGraph), as an indexing run builds one, while searches scan
 * exactly; the first catch-up after it is saved maps it. Without this the next catch-up built
 * the graph on the searching thread: `loci serve` over 226k chunks stood still ~46 s.
 */
export class GraphRepair {
  private build: BackgroundGraph | undefined;
  /** A worker that saved nothing is not started again by this engine (the catch-up builds in place, as before). */
  private failed = false;

  /** Before a search's catch-up: starts the worker when the engine keeps an index that wants a graph it has no readable file for. */
  async before(store: Store, warm: WarmIndex): Promise<void> {
    const { graphFile, buildGraph, embedderId, dimensions } = warm.options;
    if (this.build || this.failed || !graphFile || buildGraph === false || embedderId === 'none' || dimensions <= 0 || graphBeingBuilt(graphFile)) return;
    if (warm.usesVectorGraph || (warm.size > 0 && warm.size < defaultHnswOptions.threshold)) return; // the usual case: no file is looked at
    if (!warm.lacksSavedGraph && existsSync(graphFile)) return;
    const rows = warm.size > 0 ? warm.size : await store.countChunks();
    if (rows < defaultHnswOptions.threshold) return;
    dropUnreadableGraph(graphFile); // the worker starts only where no graph file is
    const build = BackgroundGraph.forRun({ store, embedderId, dimensions, graphFile, chunksBefore: rows });
    if (!build) return;
    this.build = build;
    // The worker reads every vector, saves the file and stops.
    void build.finish().then((saved) => {
      if (saved === undefined) this.failed = true;
      if (this.build === build) this.build = undefined;
    });
  }

  async stop(): Promise<void> {
    const build = this.build;
    this.build = undefined;
    await build?.stop();
  }
}
