import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { call, withRoot, type SearchReply, type SearchRequest, type SearchResult } from '../api.js';
import { type Part, SignalBar } from '../components/bars.js';
import { Code } from '../components/code.js';
import { ErrorBox, useDebounced, Warnings } from '../components/ui.js';

const MODES = ['default', 'hybrid', 'lexical', 'vector'] as const;

export function explanationParts(result: SearchResult): Part[] {
  const parts: Part[] = [];
  for (const [signal, part] of Object.entries(result.explanation ?? {})) {
    if (part) parts.push({ signal, value: part.contribution, detail: `raw ${part.raw.toFixed(3)}, normalized ${part.normalized.toFixed(3)}, weight ${part.weight}` });
  }
  return parts;
}

const splitList = (text: string): string[] =>
  text
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter(Boolean);

export function SearchPage({ root }: { root: string }) {
  const [query, setQuery] = useState(() => new URLSearchParams(location.hash.split('?')[1] ?? '').get('q') ?? '');
  const [mode, setMode] = useState<(typeof MODES)[number]>('default');
  const [paths, setPaths] = useState('');
  const [languages, setLanguages] = useState('');
  const [files, setFiles] = useState(false);
  const [topK, setTopK] = useState(10);
  const [reply, setReply] = useState<SearchReply>();
  const [serverMs, setServerMs] = useState<number>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [selected, setSelected] = useState(0);
  const [open, setOpen] = useState<SearchResult>();
  const input = useRef<HTMLInputElement>(null);
  const request: SearchRequest | undefined = query.trim()
    ? {
        query: query.trim(),
        topK,
        explain: true,
        ...(mode !== 'default' ? { mode } : {}),
        ...(paths.trim() ? { paths: splitList(paths) } : {}),
        ...(languages.trim() ? { languages: splitList(languages) } : {}),
        ...(files ? { files: true } : {}),
        root,
      }
    : undefined;
  const settled = useDebounced(JSON.stringify(request ?? null), 120);

  // Search as you type: debounced, and an older request is cancelled by a newer one.
  useEffect(() => {
    const body = JSON.parse(settled) as SearchRequest | null;
    if (!body) {
      setReply(undefined);
      return;
    }
    const controller = new AbortController();
    setBusy(true);
    call<SearchReply>('POST', '/v1/search', body, controller.signal)
      .then(({ data, serverMs: ms }) => {
        setReply(data);
        setServerMs(ms);
        setError(undefined);
        setSelected(0);
      })
      .catch((caught: unknown) => {
        if ((caught as Error).name !== 'AbortError') setError(caught);
      })
      .finally(() => setBusy(false));
    return () => controller.abort();
  }, [settled]);

  // `/` focuses the query box from anywhere on the page. A layout effect: the key works from the
  // moment the box is on screen (a plain effect waits for the next frame, and a `/` pressed before it was lost).
  useLayoutEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement;
      if (event.key === '/' && !/^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) {
        event.preventDefault();
        input.current?.focus();
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);

  const results = reply?.results ?? [];
  const onListKey = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown') setSelected((index) => Math.min(index + 1, results.length - 1));
    else if (event.key === 'ArrowUp') setSelected((index) => Math.max(index - 1, 0));
    else if (event.key === 'Enter' && results[selected]) setOpen(results[selected]);
    else if (event.key === 'Escape') setOpen(undefined);
    else return;
    event.preventDefault();
  };
  useEffect(() => {
    document.getElementById(`result-${selected}`)?.scrollIntoView({ block: 'nearest' });
  }, [selected]);

  return (
    <section aria-labelledby="search-title" class={open ? 'split' : ''}>
      <div class="pane">
        <h1 id="search-title" class="visually-hidden">
          Search
        </h1>
        <form class="controls" onSubmit={(event) => event.preventDefault()}>
          <label class="grow">
            <span class="visually-hidden">Query</span>
            <input
              ref={input}
              type="search"
              name="q"
              placeholder="Search the index (press / to focus)"
              value={query}
              onInput={(event) => setQuery(event.currentTarget.value)}
              onKeyDown={onListKey}
              autocomplete="off"
            />
          </label>
          <label>
            Mode{' '}
            <select name="mode" value={mode} onChange={(event) => setMode(event.currentTarget.value as (typeof MODES)[number])}>
              {MODES.map((entry) => (
                <option key={entry}>{entry}</option>
              ))}
            </select>
          </label>
          <label>
            Paths <input name="paths" placeholder="src/**, !**/*.test.ts" value={paths} onInput={(event) => setPaths(event.currentTarget.value)} size={16} />
          </label>
          <label>
            Language <input name="languages" placeholder="ts, py" value={languages} onInput={(event) => setLanguages(event.currentTarget.value)} size={8} />
          </label>
          <label>
            Top k <input name="topK" type="number" min={1} max={100} value={topK} onInput={(event) => setTopK(Math.max(1, Math.min(100, Number(event.currentTarget.value) || 10)))} />
          </label>
          <label class="check">
            <input type="checkbox" name="files" checked={files} onChange={(event) => setFiles(event.currentTarget.checked)} /> files
          </label>
        </form>
        <ErrorBox error={error} />
        <Warnings warnings={reply?.warnings} />
        {reply ? (
          <p class="meta" aria-live="polite">
            {results.length} results · server {serverMs?.toFixed(1) ?? '?'} ms · {reply.retrieval.index} index, {reply.retrieval.lexical}, vectors {reply.retrieval.vectors}
            {reply.degraded ? ` · degraded: ${reply.degradedParts.join(', ')}` : ''}
            {busy ? ' · searching…' : ''}
          </p>
        ) : null}
        <ol class="results" aria-label="results" tabIndex={-1} onKeyDown={onListKey}>
          {results.map((result, index) => (
            <li key={result.chunkId} id={`result-${index}`} class={`result${index === selected ? ' selected' : ''}`} data-testid="result">
              <button
                type="button"
                class="result-head"
                onClick={() => {
                  setSelected(index);
                  setOpen(result);
                }}
                aria-label={`open ${result.path} line ${result.startLine}`}
              >
                <span class="path">
                  {result.path}:{result.startLine}-{result.endLine}
                </span>
                {result.symbol ? <span class="symbol">{result.symbol}</span> : null}
                {result.role && result.role !== 'implementation' ? <span class={`badge role-${result.role}`}>{result.role}</span> : null}
                {result.stale ? <span class="badge stale">stale</span> : null}
                <span class="score" data-testid="score">
                  {result.score.toFixed(3)}
                </span>
              </button>
              <SignalBar parts={explanationParts(result)} label={`score of ${result.path} by signal`} />
              {result.adjustments ? <Adjustments adjustments={result.adjustments} /> : null}
              <Code text={clip(result.text)} language={result.language} startLine={result.startLine} />
            </li>
          ))}
        </ol>
        {reply && results.length === 0 ? <p class="empty">No results. Try fewer words, another mode, or drop the filters.</p> : null}
      </div>
      {open ? <FileView root={root} result={open} others={results.filter((other) => other.path === open.path)} onClose={() => setOpen(undefined)} /> : null}
    </section>
  );
}

function clip(text: string): string {
  const lines = text.split('\n');
  return lines.length > 14 ? `${lines.slice(0, 14).join('\n')}\n…` : text;
}

function Adjustments({ adjustments }: { adjustments: NonNullable<SearchResult['adjustments']> }) {
  const parts: string[] = [];
  if (adjustments.role && adjustments.role.factor !== 1) parts.push(`${adjustments.role.role} file ×${adjustments.role.factor.toFixed(2)}`);
  if (adjustments.fromTests) parts.push(`+${adjustments.fromTests.toFixed(3)} from its tests`);
  if (adjustments.definition) parts.push(`+${adjustments.definition.toFixed(3)} definition`);
  if (adjustments.capped !== undefined) parts.push(`retrieval order below the lead (was ${adjustments.capped.toFixed(3)})`);
  return parts.length ? <p class="adjustments">{parts.join(' · ')}</p> : null;
}

const CONTEXT_LINES = 30;

interface FileReply {
  text: string;
  language: string;
  truncated: boolean;
  /** The file's definitions (name and line), in line order. */
  symbols: Array<{ name: string; line: number }>;
}

/** The definitions just before and after a range: where the neighbouring chunks start. */
export function neighbours(symbols: FileReply['symbols'], from: number, to: number): { previous?: { name: string; line: number }; next?: { name: string; line: number } } {
  const sorted = [...symbols].sort((a, b) => a.line - b.line);
  const previous = sorted.filter((symbol) => symbol.line < from).pop();
  const next = sorted.find((symbol) => symbol.line > to);
  return { ...(previous ? { previous } : {}), ...(next ? { next } : {}) };
}

/** The file at the chunk, with the lines around it and the other hits in that file marked. */
function FileView({ root, result, others, onClose }: { root: string; result: SearchResult; others: SearchResult[]; onClose: () => void }) {
  const [file, setFile] = useState<FileReply>();
  const [error, setError] = useState<unknown>();
  const [whole, setWhole] = useState(false);
  const [focus, setFocus] = useState(result);
  useEffect(() => setFocus(result), [result]);
  useEffect(() => {
    setFile(undefined);
    setError(undefined);
    call<FileReply>('GET', withRoot('/v1/file', root, { path: result.path }))
      .then(({ data }) => setFile(data))
      .catch(setError);
  }, [root, result.path]);
  useEffect(() => {
    document.getElementById(`L${focus.startLine}`)?.scrollIntoView({ block: 'center' });
  }, [file, focus, whole]);
  const lines = file?.text.split('\n') ?? [];
  const from = whole ? 1 : Math.max(1, focus.startLine - CONTEXT_LINES);
  const to = whole ? lines.length : Math.min(lines.length, focus.endLine + CONTEXT_LINES);
  return (
    <aside class="pane file-view" aria-label={`file ${result.path}`} data-testid="file-view">
      <div class="file-head">
        <b>{result.path}</b>
        <span class="meta">
          lines {focus.startLine}-{focus.endLine}
        </span>
        <div class="spacer" />
        <label class="check">
          <input type="checkbox" checked={whole} onChange={(event) => setWhole(event.currentTarget.checked)} /> whole file
        </label>
        <button type="button" class="secondary" onClick={onClose} aria-label="close file">
          ✕
        </button>
      </div>
      {others.length > 1 ? (
        <nav class="chunks" aria-label="chunks of this file in the results">
          {others.map((other) => (
            <button type="button" key={other.chunkId} aria-pressed={other.chunkId === focus.chunkId} onClick={() => setFocus(other)}>
              {other.symbol ?? `L${other.startLine}`} ({other.score.toFixed(2)})
            </button>
          ))}
        </nav>
      ) : null}
      <ErrorBox error={error} />
      {file ? (
        <SymbolNav
          symbols={file.symbols}
          lines={lines.length}
          focus={focus}
          onJump={(from, to) => setFocus({ ...focus, chunkId: `symbol:${from}`, startLine: from, endLine: to, symbol: undefined })}
        />
      ) : null}
      {file ? (
        <Code
          text={lines.slice(from - 1, to).join('\n')}
          language={file.language}
          startLine={from}
          mark={{ from: focus.startLine, to: focus.endLine }}
          anchors={others.map((other) => other.startLine)}
        />
      ) : null}
      {file?.truncated ? <p class="meta">The file is cut at 1 MB.</p> : null}
    </aside>
  );
}

/** Previous and next definitions in the file, and all of them: jump from chunk to chunk. */
function SymbolNav({ symbols, lines, focus, onJump }: { symbols: FileReply['symbols']; lines: number; focus: SearchResult; onJump: (from: number, to: number) => void }) {
  if (symbols.length === 0) return null;
  const sorted = [...symbols].sort((a, b) => a.line - b.line);
  const rangeOf = (symbol: { line: number }): [number, number] => {
    const after = sorted.find((other) => other.line > symbol.line);
    return [symbol.line, after ? after.line - 1 : lines];
  };
  const { previous, next } = neighbours(sorted, focus.startLine, focus.endLine);
  return (
    <nav class="chunks" aria-label="definitions in this file">
      <button type="button" disabled={!previous} onClick={() => previous && onJump(...rangeOf(previous))} aria-label={previous ? `previous: ${previous.name}` : 'no previous definition'}>
        ← {previous?.name ?? 'start'}
      </button>
      <button type="button" disabled={!next} onClick={() => next && onJump(...rangeOf(next))} aria-label={next ? `next: ${next.name}` : 'no next definition'}>
        {next?.name ?? 'end'} →
      </button>
      <select
        aria-label="jump to a definition"
        value=""
        onChange={(event) => {
          const symbol = sorted[Number(event.currentTarget.value)];
          if (symbol) onJump(...rangeOf(symbol));
        }}
      >
        <option value="">{sorted.length} definitions…</option>
        {sorted.map((symbol, index) => (
          <option key={`${symbol.name}:${symbol.line}`} value={index}>
            {symbol.line}: {symbol.name}
          </option>
        ))}
      </select>
    </nav>
  );
}
