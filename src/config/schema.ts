import { z } from 'zod';

/** The embedder used when nothing selects one: offline, shipped inside the package. */
export const DEFAULT_EMBEDDER_ID = 'static';

export const searchModes = ['hybrid', 'vector', 'lexical'] as const;
export type SearchMode = (typeof searchModes)[number];

const sourcesSchema = z.strictObject({
  /** Files larger than this many bytes are skipped (reason `too-large`). */
  maxFileBytes: z.number().int().positive().default(1_000_000),
  /** Extra ignore patterns in .gitignore syntax, applied after the repository's own. */
  exclude: z.array(z.string()).default([]),
  /** Read `.gitignore` files (nested, with negation). `.lociignore` is always read. */
  respectGitignore: z.boolean().default(true),
  /**
   * Index conventional secrets files (.env, id_rsa, *.pem, …) and files holding private keys or
   * token formats, which are skipped by default (reasons `secret`, `secret-content`).
   */
  indexSecrets: z.boolean().default(false),
});

const chunkingSchema = z.strictObject({
  /** Target size of a code or prose chunk, in approximate tokens. */
  tokenBudget: z.number().int().min(32).max(8192).default(500),
  /** Line-window fallback for files no syntax chunker understands. */
  windowLines: z.number().int().min(5).max(2000).default(100),
  windowOverlap: z.number().int().min(0).max(500).default(10),
});

const fieldWeightsSchema = z.strictObject({
  path: z.number().min(0).max(100).default(1.5),
  symbols: z.number().min(0).max(100).default(2),
  heading: z.number().min(0).max(100).default(1.5),
  body: z.number().min(0).max(100).default(1),
});

const searchSchema = z.strictObject({
  topK: z.number().int().min(1).max(1000).default(10),
  mode: z.enum(searchModes).default('hybrid'),
  /** Results whose fused signal score (before the learned ranker) is below this are dropped (0 keeps everything). */
  threshold: z.number().min(-1).default(0),
  /** BM25 weight of a term found in each field, relative to the body. */
  fieldWeights: fieldWeightsSchema.prefault({}),
  /** How signals are combined: weighted normalised scores (measured best) or reciprocal rank fusion. */
  fusion: z.enum(['weighted', 'rrf']).default('weighted'),
  /** Weight of each signal in weighted fusion. */
  weights: z
    .strictObject({
      lexical: z.number().min(0).max(10).default(1),
      vector: z.number().min(0).max(10).default(0.2),
      mention: z.number().min(0).max(10).default(0.5),
    })
    .prefault({}),
  /**
   * The learned ranker that reorders the head of the fused list: "default" (shipped,
   * models/ranker-v1.json), "none" (fused order), or the path of a model file.
   */
  ranker: z.string().min(1).default('default'),
  /**
   * How much hybrid search scales down each file role when the query does not ask for it
   * (0 = no change, 1 = to nothing); tuned on developer questions (docs/quality.md).
   */
  rolePenalties: z
    .strictObject({
      implementation: z.number().min(0).max(1).default(0),
      test: z.number().min(0).max(1).default(0.3),
      fixture: z.number().min(0).max(1).default(0.3),
      example: z.number().min(0).max(1).default(0.35),
      docs: z.number().min(0).max(1).default(0.25),
      generated: z.number().min(0).max(1).default(0.5),
      config: z.number().min(0).max(1).default(0.1),
      lock: z.number().min(0).max(1).default(0.8),
    })
    .prefault({}),
  /** Share of a test's score lent to the file it tests (`compose.test.ts` → `compose.ts`). */
  testSubjectShare: z.number().min(0).max(1).default(0.15),
  /**
   * How many leading results (files with --files, chunks otherwise) the role priors order;
   * below them results keep their retrieval order, so the tests, docs and changelog a query
   * matched follow the code instead of leaving the page. 0 turns the priors off.
   */
  rolePriorDepth: z.number().int().min(0).max(1000).default(5),
  /**
   * Candidates each signal (lexical, vector, names) contributes to one ranking, whatever topK
   * is, so the first results never depend on how many are asked for. Larger: a little better
   * recall deep in the list, slower.
   */
  candidatePool: z.number().int().min(10).max(10_000).default(200),
  /** A query that is only a name puts the chunks defining it first. */
  definitionsFirst: z.boolean().default(true),
});

const embedderOptionsSchema = z.strictObject({
  /** Base URL of an OpenAI-compatible, Vertex, Gemini or Voyage endpoint (tests, proxies, local servers). */
  baseUrl: z.url().optional(),
  /** Output dimensions, when the model lets you choose or cannot be asked. */
  dimensions: z.number().int().min(1).max(16384).optional(),
  /** Name of the environment variable holding the API key (never the key itself). */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/, 'must be an environment variable name such as OPENAI_API_KEY')
    .optional(),
  /** Per-request timeout. */
  timeoutMs: z.number().int().min(100).max(600_000).default(60_000),
  /** Texts per request (capped by what the provider accepts). */
  batchSize: z.number().int().min(1).max(4096).optional(),
  /** Requests in flight at once, for providers that allow it. */
  concurrency: z.number().int().min(1).max(64).default(4),
  /** Google Cloud project and region, for Vertex AI. */
  project: z.string().optional(),
  location: z.string().default('us-central1'),
  /**
   * Vertex AI: a command printing an access token (`gcloud auth print-access-token`), run
   * without a shell and re-run before the token expires. Only the user's own config may set it.
   */
  tokenCommand: z.union([z.string().trim().min(1), z.array(z.string().min(1)).min(1)]).optional(),
  /** How long a token from tokenCommand lives when the command does not print `expires_in`. */
  tokenLifetimeSeconds: z.number().int().min(60).max(86_400).default(3600),
  /** Local ONNX models: never download (transformers.js). */
  offline: z.boolean().default(false),
  /** Local ONNX models: quantised weights (q8) or full precision (fp32). */
  dtype: z.enum(['fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4']).default('q8'),
});

const memorySchema = z.strictObject({
  /** Weight of each signal when recalling memories: BM25, vector, recency, named times, outcome, length, session. */
  weights: z
    .strictObject({
      lexical: z.number().min(0).max(10).default(1),
      vector: z.number().min(0).max(10).default(0.2),
      recency: z.number().min(0).max(10).default(0.1),
      /** Added when a record's date falls in a time the query names ("last week", "in May 2023"). */
      temporal: z.number().min(0).max(10).default(0.5),
      /** Interactions: added for outcome success, subtracted for error (a tie-breaker between similar ones). */
      outcome: z.number().min(0).max(10).default(0.1),
      /** Hybrid recall, not knowledge sections: × log(1 + a record's tokens), a prior for records that say more. */
      length: z.number().min(0).max(10).default(0.15),
      /** Hybrid recall, not knowledge sections: × the best relevance of another record of the same session (same namespace, written within an hour). */
      session: z.number().min(0).max(10).default(0.35),
      /** Hybrid recall, not knowledge sections: × log(1 + records of the session among the 20 most relevant). */
      sessionHits: z.number().min(0).max(10).default(0.075),
    })
    .prefault({}),
  /** Age at which the recency signal halves. */
  recencyHalfLifeDays: z.number().positive().max(36500).default(30),
  /** Notes and knowledge this similar (cosine) to an existing record in the namespace are merged into it. */
  dedupeSimilarity: z.number().min(0.5).max(1).default(0.97),
  /** How many preceding records of a namespace are searchable with each new turn or note (0 turns it off). */
  contextWindow: z.number().int().min(0).max(10).default(2),
  /** Results per recall when the caller does not say. */
  topK: z.number().int().min(1).max(1000).default(5),
  /** Knowledge search: minimum cosine similarity and result count (the Go agent's SIMILARITY_LIMIT / MAX_RESULTS). */
  knowledgeThreshold: z.number().min(-1).max(1).default(0.5),
  knowledgeTopK: z.number().int().min(1).max(100).default(2),
});

const indexingSchema = z.strictObject({
  /**
   * Two phases: chunks and BM25 first (searchable at once), vectors second. `auto` does it for
   * embedders slower than the built-in static one; `always` / `never` force it.
   */
  progressive: z.enum(['auto', 'always', 'never']).default('auto'),
  /**
   * Index on a worker thread (own SQLite connection) so the calling thread stays free for
   * searches; big runs also chunk on a second worker and build the vector graph on a third,
   * so a build uses more than one core. false: everything on the calling thread.
   */
  worker: z.boolean().default(true),
  /** OS niceness of the indexing worker thread: 0 normal … 19 lowest. */
  workerNiceness: z.number().int().min(0).max(19).default(10),
  /** Heap limit of the indexing worker, MB. */
  workerMemoryMb: z.number().int().min(256).max(65_536).default(4096),
});

const cacheSchema = z.strictObject({
  /**
   * Cached vectors no indexed chunk uses (another branch's files, an older embedder) kept for
   * re-use; beyond this many the oldest are dropped after each index run and by `loci gc`.
   */
  maxUnreferencedVectors: z.number().int().min(0).max(100_000_000).default(100_000),
});

const llmSchema = z.strictObject({
  /** OpenAI-compatible endpoint for `loci ask`, reranking and file picks (LOCI_LLM_BASE_URL). The key only ever comes from LOCI_LLM_API_KEY. */
  baseUrl: z.url().optional(),
  model: z.string().min(1).optional(),
  timeoutMs: z.number().int().min(100).max(600_000).default(60_000),
});

const gitSchema = z.strictObject({
  /**
   * Hosts (`github.com`, or `host:port`) that receive LOCI_GIT_TOKEN over HTTPS
   * (LOCI_GIT_TOKEN_HOSTS=github.com,gitlab.example.com). Default none; GITHUB_TOKEN goes to github.com only.
   */
  tokenHosts: z.array(z.string().min(1)).default([]),
});

export const configSchema = z.strictObject({
  /** Store location: a folder for the embedded store. Default `<root>/.loci`. */
  store: z.string().min(1).optional(),
  /** Embedder id (see `loci embedders`), or `none` for lexical-only indexes. */
  embedder: z.string().min(1).default(DEFAULT_EMBEDDER_ID),
  embedderOptions: embedderOptionsSchema.prefault({}),
  sources: sourcesSchema.prefault({}),
  chunking: chunkingSchema.prefault({}),
  search: searchSchema.prefault({}),
  memory: memorySchema.prefault({}),
  llm: llmSchema.prefault({}),
  cache: cacheSchema.prefault({}),
  indexing: indexingSchema.prefault({}),
  git: gitSchema.prefault({}),
});

export type LociConfig = z.infer<typeof configSchema>;
export type LociConfigInput = z.input<typeof configSchema>;
