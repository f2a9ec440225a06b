import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { call, type IndexDetails, type IndexProgress, streamEvents, withRoot } from '../api.js';
import { ErrorBox, Stat, Warnings } from '../components/ui.js';

const bytes = (value: number): string => (value > 1e9 ? `${(value / 1e9).toFixed(2)} GB` : value > 1e6 ? `${(value / 1e6).toFixed(1)} MB` : `${Math.round(value / 1e3)} KB`);

/** Files, chunks, vectors, skips, stale and missing files; re-index with live progress; the repo map. */
export function IndexPage({ root }: { root: string }) {
  const [details, setDetails] = useState<IndexDetails>();
  const [progress, setProgress] = useState<IndexProgress>();
  const [error, setError] = useState<unknown>();
  const [map, setMap] = useState<{ text: string; tokens: number; files: number; truncated: boolean }>();
  const stream = useRef<AbortController | undefined>(undefined);

  const load = useCallback(() => {
    call<IndexDetails>('GET', withRoot('/v1/index/details', root))
      .then(({ data }) => {
        setDetails(data);
        setError(undefined);
        if (data.indexing.running) void watch();
      })
      .catch(setError);
  }, [root]);

  const watch = async () => {
    stream.current?.abort();
    const controller = new AbortController();
    stream.current = controller;
    try {
      await streamEvents(
        withRoot('/v1/index/events', root),
        (event, data) => {
          setProgress(data as IndexProgress);
          if (event === 'end') load();
        },
        controller.signal,
      );
    } catch (caught) {
      if ((caught as Error).name !== 'AbortError') setError(caught);
    }
  };

  useEffect(() => {
    setDetails(undefined);
    setProgress(undefined);
    setMap(undefined);
    load();
    return () => stream.current?.abort();
  }, [root]);

  const reindex = async () => {
    try {
      await call('POST', '/v1/index', { root });
      await watch();
    } catch (caught) {
      setError(caught);
    }
  };
  const loadMap = () => {
    call<{ text: string; tokens: number; files: number; truncated: boolean }>('GET', withRoot('/v1/repo-map', root, { tokens: 4000 }))
      .then(({ data }) => setMap(data))
      .catch(setError);
  };

  const running = progress ? progress.running : details?.indexing.running;
  const done = progress?.done ?? 0;
  const total = progress?.total ?? 0;
  return (
    <section aria-labelledby="index-title">
      <h1 id="index-title">Index</h1>
      <ErrorBox error={error} />
      <div class="row">
        <button type="button" onClick={() => void reindex()} disabled={running}>
          {running ? 'Indexing…' : 'Re-index'}
        </button>
        {progress ? (
          <div class="progress-wrap" data-testid="index-progress" data-state={progress.running ? 'running' : progress.error ? 'failed' : 'done'}>
            <progress max={Math.max(total, 1)} value={progress.running ? done : Math.max(total, 1)} aria-label="indexing progress" />
            <span class="meta">
              {progress.running
                ? `${done}/${total || '?'} files · ${progress.filesPerSecond.toFixed(0)} files/s${progress.etaSeconds !== undefined ? ` · ETA ${Math.ceil(progress.etaSeconds)} s` : ''}`
                : progress.error
                  ? `failed: ${progress.error.message}`
                  : `done in ${(progress.elapsedMs / 1000).toFixed(1)} s`}
            </span>
          </div>
        ) : null}
      </div>
      {details && !details.indexed ? <p class="empty">This root has no index yet. Re-index builds it.</p> : null}
      {details?.indexed ? (
        <>
          <div class="stats">
            <Stat label="files" value={details.files} testid="stat-files" />
            <Stat label="chunks" value={details.chunks} testid="stat-chunks" />
            <Stat label="vectors" value={details.vectors} testid="stat-vectors" />
            <Stat label="embedder" value={details.embedder} />
            <Stat label="on disk" value={bytes(details.bytesOnDisk)} />
          </div>
          <Warnings warnings={details.warnings} />
          {details.lastFailure ? (
            <p class="error" role="alert">
              The last run failed ({details.lastFailure.code}): {details.lastFailure.message}
            </p>
          ) : null}
          {details.lastRun ? (
            <>
              <h2>Last run</h2>
              <p class="meta">
                {new Date(details.lastRun.finishedAt).toLocaleString()} · {details.lastRun.files.indexed} indexed, {details.lastRun.files.unchanged} unchanged, {details.lastRun.files.removed} removed
                · {details.lastRun.chunks.total} chunks · {details.lastRun.seconds.toFixed(1)} s
              </p>
              <h3>Skipped, by reason</h3>
              <SkipTable skipped={details.lastRun.skipped} />
            </>
          ) : null}
          {details.changes ? (
            <>
              <h2>Since the last run</h2>
              <FileList title="stale (changed on disk)" paths={details.changes.modified} />
              <FileList title="missing (deleted on disk)" paths={details.changes.deleted} />
              <FileList title="now excluded (ignored or skipped; the next run drops them)" paths={details.changes.excluded ?? []} />
              <FileList title="new (not indexed yet)" paths={details.changes.added} />
            </>
          ) : null}
        </>
      ) : null}
      <h2>Repository map</h2>
      {map ? (
        <>
          <p class="meta">
            {map.files} files · {map.tokens} tokens{map.truncated ? ' · cut to the budget' : ''}
          </p>
          <figure aria-labelledby="map-caption">
            <figcaption id="map-caption" class="visually-hidden">
              repository map
            </figcaption>
            <pre class="prompt">{map.text}</pre>
          </figure>
        </>
      ) : (
        <button type="button" class="secondary" onClick={loadMap}>
          Show the repo map
        </button>
      )}
    </section>
  );
}

function SkipTable({ skipped }: { skipped: Record<string, number> }) {
  const entries = Object.entries(skipped).filter(([, count]) => count > 0);
  if (entries.length === 0) return <p class="meta">None.</p>;
  return (
    <table class="items" aria-label="skipped files by reason">
      <tbody>
        {entries.map(([reason, count]) => (
          <tr key={reason}>
            <td>{reason}</td>
            <td class="num">{count}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function FileList({ title, paths }: { title: string; paths: string[] }) {
  return (
    <details open={paths.length > 0 && paths.length <= 20}>
      <summary>
        {title}: {paths.length}
      </summary>
      <ul class="paths">
        {paths.slice(0, 500).map((path) => (
          <li key={path}>{path}</li>
        ))}
      </ul>
    </details>
  );
}
