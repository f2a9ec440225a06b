/**
 * The error-code table. Every LociError carries one of these codes; interfaces map the
 * `category` to an exit code (CLI) or a status (HTTP) in one place each.
 */
export type ErrorCategory =
  | 'usage' // the caller asked for something malformed: fix the input
  | 'not-found' // a folder, index, record or file that does not exist
  | 'conflict' // the store exists but cannot be used as it is (foreign, newer schema, locked)
  | 'provider' // a remote or local model failed: network, auth, quota, bad reply
  | 'aborted' // the caller cancelled
  | 'unsupported' // a capability this adapter does not have; callers may fall back
  | 'internal'; // a bug or an unexpected system failure

export const errorCodes = {
  CONFIG_INVALID: { category: 'usage', hint: 'Fix each listed value where it comes from: the config file, LOCI_* variable or flag named in parentheses.' },
  INVALID_ARGUMENT: { category: 'usage', hint: 'Check the value against the documented form.' },
  QUERY_EMPTY: { category: 'usage', hint: 'Pass a non-empty query, e.g. loci search "parse config" or loci ask "how is the config parsed?".' },
  ROOT_NOT_FOUND: { category: 'not-found', hint: 'Pass an existing folder, e.g. loci index ./my-project.' },
  INDEX_NOT_FOUND: { category: 'not-found', hint: 'Run `loci index <dir>` first, or pass --store/--root pointing at an existing index.' },
  RECORD_NOT_FOUND: { category: 'not-found', hint: 'List what exists first (e.g. `loci memory list`).' },
  NAMESPACE_NOT_FOUND: { category: 'not-found', hint: 'List the namespaces that exist with `loci memory list --namespaces`, or add a record to create one.' },
  IMPORT_INVALID: { category: 'usage', hint: 'Pass a loci memory export, a Go agent {name}_vector_store.json or a Unity memory_log.json; nothing was written.' },
  STORE_FOREIGN: { category: 'conflict', hint: 'The file is not a loci store; loci will not write over it. Point --store at another path.' },
  STORE_CORRUPT: {
    category: 'conflict',
    hint: 'Move the damaged database file aside: `loci index` rebuilds an index; memory.db is separate and cannot be rebuilt, so save it with `loci memory export` first. `loci doctor` checks both.',
  },
  STORE_SCHEMA_TOO_NEW: { category: 'conflict', hint: 'This store was written by a newer loci. Upgrade loci, or index into another --store.' },
  ENGINE_CLOSED: { category: 'usage', hint: 'Create a new engine with createLoci() (and its memory with loci.memory()); close() ends an engine for good.' },
  STORE_GONE: {
    category: 'conflict',
    hint: 'Restart the process that had it open (loci watch, your program): it opens the store at that path again, or creates a new one. loci serve and loci mcp open the new store at their next request.',
  },
  STORE_BUSY: { category: 'conflict', hint: 'Another process holds the store; retry when it finishes.' },
  STORE_UNREACHABLE: { category: 'provider', hint: 'Check the PostgreSQL URL (host, port, database) and that the server is running and reachable.' },
  STORE_AUTH: { category: 'provider', hint: 'Check the user in the URL and the password in PGPASSWORD (or the URL).' },
  EMBEDDER_UNKNOWN: { category: 'usage', hint: 'Use one of the listed embedder ids, or `none` for lexical-only.' },
  EMBEDDER_MISMATCH: { category: 'conflict', hint: 'Re-index with the embedder the index was built with, or re-run `loci index` to re-embed with the new one.' },
  EMBEDDER_FAILED: { category: 'provider', hint: 'Check the embedding provider (URL, model, key in the environment) and retry.' },
  EMBEDDER_AUTH: { category: 'provider', hint: 'Set a valid API key in the environment variable named in the message.' },
  EMBEDDER_UNAVAILABLE: { category: 'unsupported', hint: 'Install the optional dependency named in the message, or choose another embedder.' },
  DIMENSION_MISMATCH: { category: 'provider', hint: 'Set the dimensions in config to what the model returns, or pick the matching model.' },
  LLM_NOT_CONFIGURED: { category: 'usage', hint: 'Set LOCI_LLM_BASE_URL and LOCI_LLM_MODEL (and LOCI_LLM_API_KEY if needed).' },
  LLM_FAILED: { category: 'provider', hint: 'Check the chat endpoint (URL, model name, that it is running) and retry.' },
  LLM_AUTH: { category: 'provider', hint: 'Set a valid key in LOCI_LLM_API_KEY.' },
  CONTEXT_TOO_LARGE: { category: 'usage', hint: 'Raise the token limit (CLI --max-tokens, HTTP and MCP maxTokens), narrow the mask, or drop the include.' },
  DATASET_INVALID: { category: 'usage', hint: 'A BEIR folder needs corpus.jsonl(.gz), queries.jsonl and qrels/<split>.tsv.' },
  NOT_SUPPORTED: { category: 'unsupported', hint: 'This operation is not available here; see the message for the alternative.' },
  INDEX_WORKER_FAILED: {
    category: 'internal',
    hint: 'Finished files are kept: re-run to resume. If the worker ran out of memory, raise indexing.workerMemoryMb, or set indexing.worker to false to index in-process.',
  },
  ABORTED: { category: 'aborted', hint: 'Re-run it to continue where it stopped.' },
  STORE_UNWRITABLE: {
    category: 'conflict',
    hint: 'Check the owner and permissions of the store folder (ls -ld), that its file system is writable and has room, or pass --store to a writable folder.',
  },
  STORE_PATH_INVALID: { category: 'conflict', hint: 'Pass --store a folder (loci keeps index.db inside it) or the path of a .db file, where nothing else is in the way.' },
  INTERNAL: { category: 'internal', hint: 'This is a bug in loci; please report it with the command you ran.' },
  CONFIG_UNTRUSTED: { category: 'usage', hint: "Run `loci trust <dir>` once if you trust the folder's loci.config.json, or set the listed keys in your own config, LOCI_* variables or flags." },
  // The input is well formed but the store already holds that id: a store conflict (HTTP 409, CLI exit 4).
  MEMORY_ID_CONFLICT: { category: 'conflict', hint: 'Change the existing record with update, or leave the id out to get a new one.' },
  PATH_OUTSIDE_ROOT: { category: 'usage', hint: 'Include files inside the project folder, by a path relative to it; links leading out of it are not followed.' },
  PATH_EXCLUDED: {
    category: 'usage',
    hint: "The file is kept out by the ignore rules (.gitignore, .lociignore, sources.exclude), the secret rules, or is loci's store or .git; only what loci may index can be included.",
  },
  NOT_A_REGULAR_FILE: { category: 'usage', hint: 'Include a regular file; folders, FIFOs, sockets and devices are not read.' },
  FILE_TOO_LARGE: { category: 'usage', hint: 'Include a smaller file, or raise sources.maxFileBytes in your own config.' },
  FILE_NOT_FOUND: { category: 'not-found', hint: 'Check the path; includes are relative to the project folder.' },
} as const satisfies Record<string, { category: ErrorCategory; hint: string }>;

export type ErrorCode = keyof typeof errorCodes;
