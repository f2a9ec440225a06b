/** What kind of thing a memory is; each kind has its own fields. */
export type MemoryKind = 'turn' | 'interaction' | 'knowledge' | 'note';
export const memoryKinds: readonly MemoryKind[] = ['turn', 'interaction', 'knowledge', 'note'];

export type InteractionOutcome = 'success' | 'error' | 'cancelled';
export const interactionOutcomes: readonly InteractionOutcome[] = ['success', 'error', 'cancelled'];

/** A dialog turn (DeepWiki's {user_query, assistant_response}). */
export interface TurnFields {
  conversationId: string;
  userQuery: string;
  assistantResponse: string;
}

/** One command execution and how it went (the Unity seed's InteractionRecord). */
export interface InteractionFields {
  prompt: string;
  response: string;
  outcome: InteractionOutcome;
  feedback?: string;
  multiStep?: boolean;
}

/** A section of an agent's knowledge file (the Go seed's per-agent vector store). */
export interface KnowledgeFields {
  source: string;
  headingPath: string[];
}

export interface MemoryRecord {
  id: string;
  /** Slash-separated, nestable: `agent/boss/session/42`. A scope includes its descendants. */
  namespace: string;
  kind: MemoryKind;
  /** The searchable text. */
  text: string;
  /** When it happened (epoch ms). */
  time: number;
  updatedAt: number;
  /** After this time (epoch ms) the record is gone from results and purged. */
  expiresAt?: number;
  /** How many near-identical records were merged into this one. */
  mergedCount: number;
  /**
   * Text around the record that helps find it (e.g. the message it answers): searchable
   * with the record, never returned as its text.
   */
  context?: string;
  fields?: TurnFields | InteractionFields | KnowledgeFields;
  metadata?: Record<string, unknown>;
  /**
   * Texts this record had before `update` replaced them, oldest first (at most
   * MAX_VERSIONS, and MAX_RECORD_CHARS of text in all; older ones drop off). Not searched.
   */
  versions?: MemoryVersion[];
  /**
   * Ids of near-identical records in the same namespace that this one contradicts (a
   * different number, negation or name), found when it was added. Both are kept; recall
   * ranks the newer of each pair above the older.
   */
  conflictsWith?: string[];
  /** Set on read when the stored row had to be repaired (e.g. a time outside years 0001–9999), and on a record just written without a vector because the embedder failed. Never stored. */
  warnings?: string[];
}

/** A replaced text of a record (MemoryRecord.versions). */
export interface MemoryVersion {
  text: string;
  /** The fields that text came from (turns and interactions). */
  fields?: MemoryRecord['fields'];
  /** When that text was written, and when `update` replaced it (epoch ms). */
  updatedAt: number;
  replacedAt: number;
}

export interface MemoryInput {
  namespace: string;
  text: string;
  kind?: MemoryKind;
  id?: string;
  time?: number;
  /** Time to live in ms from `time`. */
  ttlMs?: number;
  /** Text around the record that helps find it (e.g. the message it answers). */
  context?: string;
  fields?: MemoryRecord['fields'];
  metadata?: Record<string, unknown>;
}

export type RecallMode = 'hybrid' | 'lexical' | 'vector' | 'cosine';
export const recallModes: readonly RecallMode[] = ['hybrid', 'lexical', 'vector', 'cosine'];
/** The most records one recall returns (config memory.topK says the same). */
export const MAX_RECALL_TOP_K = 1000;

export interface RecallOptions {
  /** Namespaces to search (each with its descendants). Default: all. */
  namespaces?: string[];
  topK?: number;
  kinds?: MemoryKind[];
  outcome?: InteractionOutcome;
  /** Only records at or after / before these times (epoch ms). */
  since?: number;
  until?: number;
  /** Drop results whose fused score is below this. */
  minScore?: number;
  /** Drop results whose cosine similarity is below this (needs vectors). */
  minSimilarity?: number;
  /**
   * hybrid (default): BM25 + vector + recency and the other signals; lexical or vector: that
   * one signal plus recency, times and outcome; cosine: cosine similarity alone, best first
   * (the Go agent's search; needs vectors).
   */
  mode?: RecallMode;
  /** "Now" for recency (default Date.now()); tests and evals pin it. */
  now?: number;
  /** Return each hit's score broken down by signal (MemoryHit.explanation). */
  explain?: boolean;
  signal?: AbortSignal;
}

/** The parts a recall score is made of (MemoryHit.signals, MemoryHit.explanation). */
export type MemorySignal = 'lexical' | 'vector' | 'recency' | 'temporal' | 'outcome' | 'length' | 'session' | 'sessionHits';

export interface MemoryHit {
  record: MemoryRecord;
  score: number;
  /** `outcome` is +1 for a successful interaction and −1 for one that ended in an error. `temporal` is 1 when the record's date falls in a time the query names ("last week", "in May 2023"). */
  signals: {
    lexical?: number;
    vector?: number;
    recency?: number;
    temporal?: number;
    outcome?: number;
    /** Hybrid recall, not knowledge sections: the record's token count. */
    length?: number;
    /** Hybrid recall, not knowledge sections: the best relevance (normalised BM25 + vector) of another record of its session (same namespace, written within an hour). */
    session?: number;
    /** Hybrid recall, not knowledge sections: how many records of its session (itself included) are among the 20 most relevant. */
    sessionHits?: number;
    /**
     * 1 when this record contradicts an older near-identical one that recall also found
     * (MemoryRecord.conflictsWith): it is placed right above that one whatever its score.
     * A rank tie-break, not part of the score.
     */
    supersedes?: number;
  };
  /**
   * With `explain: true`: each signal's raw value, the value it enters the score as (min-max
   * normalised BM25 and cosine, log of counts), its weight and their product. The
   * contributions sum to `score`.
   */
  explanation?: Partial<Record<MemorySignal, { raw: number; normalized: number; weight: number; contribution: number }>>;
}

export interface MemoryFilter {
  namespaces?: string[];
  kinds?: MemoryKind[];
  ids?: string[];
  /** Records whose time is before this (epoch ms). */
  before?: number;
  outcome?: InteractionOutcome;
  /** Include records past their expiry (list and export only). */
  includeExpired?: boolean;
}

/** A dialog turn to append (DeepWiki's {id, user_query, assistant_response}). */
export interface TurnInput {
  conversationId: string;
  userQuery: string;
  assistantResponse: string;
  /** Default `conversations/<conversationId>`. */
  namespace?: string;
  id?: string;
  time?: number;
  ttlMs?: number;
  metadata?: Record<string, unknown>;
}

/** One command execution to log (the Unity seed's InteractionRecord). */
export interface InteractionInput {
  namespace: string;
  prompt: string;
  response?: string;
  outcome: InteractionOutcome;
  feedback?: string;
  multiStep?: boolean;
  id?: string;
  time?: number;
  ttlMs?: number;
  metadata?: Record<string, unknown>;
}

/** A conversation history's token budget when the caller names none. */
export const DEFAULT_HISTORY_TOKENS = 2000;

export interface HistoryOptions {
  conversationId: string;
  /** Default `conversations/<conversationId>`. */
  namespace?: string;
  /** Older turns relevant to this are added after the latest ones. */
  query?: string;
  /** Total size of the returned turns, in `tokenizer` tokens (default DEFAULT_HISTORY_TOKENS, 2000, as on every door). */
  tokenBudget?: number;
  /** A tokenizer id or model name, as for context (`o200k`, `cl100k`, `gpt-4o`, `bytes`; default o200k). */
  tokenizer?: string;
  /** Share of the budget kept for the latest turns before relevant older ones (default 0.5). */
  recentShare?: number;
  now?: number;
  signal?: AbortSignal;
}

export interface HistoryResult {
  /** Chosen turns in conversation order. */
  turns: MemoryRecord[];
  tokens: number;
  /** Ids of the turns chosen for being recent, and for being relevant to the query. */
  recentIds: string[];
  relevantIds: string[];
  /** Turns in the conversation that were left out. */
  omitted: number;
}

/** Reads a file inside the project folder by the project's rules (inside the root, ignore and secret rules, size cap); `path` comes back relative to the root. */
export type SourceReader = (path: string, signal?: AbortSignal) => Promise<{ text: string; path: string }>;
