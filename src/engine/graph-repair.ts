import { existsSync } from 'node:fs';
import { BackgroundGraph } from '../indexing/background-graph.js';
import { defaultHnswOptions } from '../retrieve/warm/exact-or-graph-vector-index.js';
import { graphBeingBuilt } from '../retrieve/warm/graph-builds.js';
import type { WarmIndex } from '../retrieve/warm/warm-index.js';
import { storeInstanceOf, vectorRows } from '../retrieve/warm/warm-segment.js';
import { dropUnreadableGraph } from '../retrieve/warm/usearch-graph.js';
import { foreignGraph } from '../store/graph-file-sum.js';
import type { Store } from '../store/spec.js';

/**
 * A long-lived engine's vector graph when the saved one is missing or was found damaged: built
 * on the graph worker (BackgroundGraph), as an indexing run builds one, while searches scan
 * exactly; the first catch-up after it is saved maps it. Without this the next catch-up built
 * the graph on the searching thread: `loci serve` over 226k chunks stood still ~46 s.
 */
export class GraphRepair {
  private build: BackgroundGraph | undefined;
  /** The warm index the worker builds for (one of another embedder is stopped). */
  private forIndex: WarmIndex | undefined;
  /** Set from the first check to the worker's start: concurrent searches start one worker, not one each. */
  private starting = false;
  /** A worker that saved no usable graph is not started again by this engine (the catch-up builds in place, as before). */
  private failed = false;

  /** Before a search's catch-up: starts the worker when the engine keeps an index that wants a graph it has no readable file for. */
  async before(store: Store, warm: WarmIndex): Promise<void> {
    if (this.build && this.forIndex !== warm) await this.stop(); // the index was replaced (another embedder)
    const { graphFile, buildGraph, embedderId, dimensions, segmentFile } = warm.options;
    if (this.build || this.starting || this.failed || !graphFile || buildGraph === false || embedderId === 'none' || dimensions <= 0 || graphBeingBuilt(graphFile)) return;
    if (warm.usesVectorGraph || (warm.size > 0 && warm.size < defaultHnswOptions.threshold)) return; // the usual case: no file is looked at
    const fileThere = !warm.lacksSavedGraph && existsSync(graphFile);
    // Set before anything is awaited: searches that arrive together start one worker.
    this.starting = true;
    try {
      const instance = await storeInstanceOf(store);
      // A graph saved for another store at this path (deleted and made again) counts as none: the worker builds this store's.
      if (fileThere && !foreignGraph(graphFile, instance)) return;
      const rows = await vectorRows(store, segmentFile);
      if (rows < defaultHnswOptions.threshold || this.build || graphBeingBuilt(graphFile)) return;
      dropUnreadableGraph(graphFile, instance); // the worker starts only where no graph file is
      const build = BackgroundGraph.forRun({ store, embedderId, dimensions, graphFile, chunksBefore: rows });
      if (!build) return;
      this.build = build;
      this.forIndex = warm;
      // The worker reads every vector, saves the file and stops.
      void build.finish().then((saved) => {
        if (this.build !== build) return; // stopped (a run, close): not a failure
        this.build = undefined;
        this.forIndex = undefined;
        if (saved === undefined || saved < defaultHnswOptions.threshold) this.failed = true;
      });
    } finally {
      this.starting = false;
    }
  }

  async stop(): Promise<void> {
    const build = this.build;
    this.build = undefined;
    this.forIndex = undefined;
    await build?.stop();
  }
}
