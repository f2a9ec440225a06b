import { useEffect, useState } from 'preact/hooks';
import { call, type ForgetRequest, type MemoryHit, type MemoryRecord, withRoot } from '../api.js';
import { type Part, SignalBar } from '../components/bars.js';
import { Dialog, ErrorBox, Warnings } from '../components/ui.js';

const KINDS = ['turn', 'interaction', 'knowledge', 'note'] as const;
const OUTCOMES = ['success', 'error', 'cancelled'] as const;
/** loci's export, the Unity assistant's memory_log.json, the Go agent's vector store: each imports back. */
const FORMATS = ['loci', 'unity', 'go-agent'] as const;

interface TreeNode {
  name: string;
  path: string;
  /** Records in this namespace itself. */
  own: number;
  /** Records here and below. */
  total: number;
  children: TreeNode[];
}

/** `agents/alice` and `agents/bob` under `agents`: namespaces as a tree, each with its counts. */
export function namespaceTree(namespaces: Array<{ namespace: string; records: number }>): TreeNode[] {
  const top: TreeNode = { name: '', path: '', own: 0, total: 0, children: [] };
  for (const { namespace, records } of namespaces) {
    let node = top;
    const parts = namespace.split('/');
    parts.forEach((part, index) => {
      const path = parts.slice(0, index + 1).join('/');
      let child = node.children.find((entry) => entry.path === path);
      if (!child) {
        child = { name: part, path, own: 0, total: 0, children: [] };
        node.children.push(child);
      }
      child.total += records;
      node = child;
    });
    node.own += records;
  }
  return top.children;
}

export function MemoryPage({ root }: { root: string }) {
  const [namespaces, setNamespaces] = useState<Array<{ namespace: string; records: number }>>([]);
  const [namespace, setNamespace] = useState<string>();
  const [kind, setKind] = useState('');
  const [outcome, setOutcome] = useState('');
  const [records, setRecords] = useState<MemoryRecord[]>();
  const [error, setError] = useState<unknown>();
  const [confirm, setConfirm] = useState<{ filter: ForgetRequest; matched: number; records: MemoryRecord[] }>();
  const [notice, setNotice] = useState('');
  const [format, setFormat] = useState<(typeof FORMATS)[number]>('loci');

  // A namespace with sub-namespaces covers their records too (agents → agents/alice, agents/bob).
  const coveredBy = (name: string): string[] => {
    const covered = namespaces.map((entry) => entry.namespace).filter((entry) => entry === name || entry.startsWith(`${name}/`));
    return covered.length ? covered : [name];
  };

  const loadNamespaces = () =>
    call<{ namespaces: Array<{ namespace: string; records: number }> }>('GET', withRoot('/v1/memory/namespaces', root))
      .then(({ data }) => setNamespaces(data.namespaces))
      .catch(setError);
  const loadRecords = () => {
    if (namespace === undefined) return;
    // A namespace with sub-namespaces shows their records too (agents → agents/alice, agents/bob).
    call<{ records: MemoryRecord[] }>('GET', withRoot('/v1/memory/records', root, { namespace: coveredBy(namespace), kind, outcome, limit: 500 }))
      .then(({ data }) => {
        setRecords([...data.records].sort((a, b) => b.time - a.time));
        setError(undefined);
      })
      .catch(setError);
  };
  useEffect(() => {
    setNamespace(undefined);
    setRecords(undefined);
    void loadNamespaces();
  }, [root]);
  useEffect(loadRecords, [root, namespace, kind, outcome, namespaces]);

  // Forgetting always goes through a preview: what will be deleted is shown before anything is.
  const preview = async (filter: ForgetRequest) => {
    try {
      const { data } = await call<{ matched: number; records: MemoryRecord[] }>('POST', '/v1/memory/forget', { ...filter, dryRun: true, root });
      setConfirm({ filter, matched: data.matched, records: data.records });
    } catch (caught) {
      setError(caught);
    }
  };
  const forget = async () => {
    if (!confirm) return;
    try {
      const { data } = await call<{ forgotten: number }>('POST', '/v1/memory/forget', { ...confirm.filter, root });
      setNotice(`Forgot ${data.forgotten} record${data.forgotten === 1 ? '' : 's'}.`);
      setConfirm(undefined);
      await loadNamespaces();
      loadRecords();
    } catch (caught) {
      setError(caught);
    }
  };
  const exportNamespace = async () => {
    try {
      const { data } = await call<unknown>('GET', withRoot('/v1/memory/export', root, { namespace: namespace === undefined ? undefined : coveredBy(namespace), format }));
      const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
      const link = Object.assign(document.createElement('a'), { href: url, download: `loci-memory-${(namespace ?? 'all').replace(/[^\w.-]+/g, '_')}-${format}.json` });
      link.click();
      URL.revokeObjectURL(url);
    } catch (caught) {
      setError(caught);
    }
  };

  return (
    <section aria-labelledby="memory-title" class="memory">
      <h1 id="memory-title">Memory</h1>
      <ErrorBox error={error} />
      <p class="meta" aria-live="polite">
        {notice}
      </p>
      <div class="columns">
        <nav aria-label="namespaces" class="tree">
          <h2>Namespaces</h2>
          {namespaces.length === 0 ? <p class="meta">No records yet.</p> : <Tree nodes={namespaceTree(namespaces)} selected={namespace} onSelect={setNamespace} />}
        </nav>
        <div class="grow">
          {namespace !== undefined ? (
            <>
              <div class="controls">
                <h2 class="grow">{namespace}</h2>
                <label>
                  Kind{' '}
                  <select name="kind" value={kind} onChange={(event) => setKind(event.currentTarget.value)}>
                    <option value="">any</option>
                    {KINDS.map((entry) => (
                      <option key={entry}>{entry}</option>
                    ))}
                  </select>
                </label>
                <label>
                  Outcome{' '}
                  <select name="outcome" value={outcome} onChange={(event) => setOutcome(event.currentTarget.value)}>
                    <option value="">any</option>
                    {OUTCOMES.map((entry) => (
                      <option key={entry}>{entry}</option>
                    ))}
                  </select>
                </label>
                <button
                  type="button"
                  class="danger"
                  onClick={() =>
                    void preview({
                      namespaces: coveredBy(namespace),
                      ...(kind ? { kinds: [kind as (typeof KINDS)[number]] } : {}),
                      ...(outcome ? { outcome: outcome as (typeof OUTCOMES)[number] } : {}),
                    })
                  }
                >
                  Forget these…
                </button>
                <label>
                  Format{' '}
                  <select name="format" value={format} onChange={(event) => setFormat(event.currentTarget.value as (typeof FORMATS)[number])}>
                    {FORMATS.map((entry) => (
                      <option key={entry}>{entry}</option>
                    ))}
                  </select>
                </label>
                <button type="button" class="secondary" onClick={() => void exportNamespace()}>
                  Export
                </button>
              </div>
              <ol class="records" aria-label="records">
                {(records ?? []).map((record) => (
                  <RecordCard key={record.id} record={record} onForget={() => void preview({ ids: [record.id] })} />
                ))}
              </ol>
              {records?.length === 0 ? <p class="empty">No records match.</p> : null}
            </>
          ) : (
            <p class="meta">Pick a namespace.</p>
          )}
          <RecallPlayground root={root} namespace={namespace} />
        </div>
      </div>
      <Dialog open={confirm !== undefined} title="Forget these records?" onClose={() => setConfirm(undefined)}>
        {confirm ? (
          <>
            <p>
              <b data-testid="forget-count">{confirm.matched}</b> record{confirm.matched === 1 ? '' : 's'} will be deleted for good:
            </p>
            <ul class="preview">
              {confirm.records.map((record) => (
                <li key={record.id}>
                  <code>{record.id.slice(0, 8)}</code> {record.kind} · {record.namespace} · {record.text.slice(0, 120)}
                </li>
              ))}
              {confirm.matched > confirm.records.length ? <li>… and {confirm.matched - confirm.records.length} more</li> : null}
            </ul>
            <div class="row">
              <button type="button" class="danger" onClick={() => void forget()} disabled={confirm.matched === 0}>
                Forget {confirm.matched}
              </button>
              {/* biome-ignore lint/a11y/noAutofocus: a destructive dialog focuses the safe choice, so Enter keeps the records */}
              <button type="button" class="secondary" onClick={() => setConfirm(undefined)} autoFocus>
                Keep them
              </button>
            </div>
          </>
        ) : null}
      </Dialog>
    </section>
  );
}

function Tree({ nodes, selected, onSelect }: { nodes: TreeNode[]; selected: string | undefined; onSelect: (namespace: string) => void }) {
  return (
    <ul>
      {nodes.map((node) => (
        <li key={node.path}>
          <button type="button" onClick={() => onSelect(node.path)} aria-current={node.path === selected ? 'true' : undefined} data-namespace={node.path}>
            {node.name} <span class="count">{node.total}</span>
          </button>
          {node.children.length ? <Tree nodes={node.children} selected={selected} onSelect={onSelect} /> : null}
        </li>
      ))}
    </ul>
  );
}

function RecordCard({ record, onForget }: { record: MemoryRecord; onForget: () => void }) {
  const fields = record.fields as Record<string, unknown> | undefined;
  const outcome = typeof fields?.outcome === 'string' ? fields.outcome : undefined;
  return (
    <li class="record" data-testid="record" data-id={record.id}>
      <div class="record-head">
        <span class={`badge kind-${record.kind}`}>{record.kind}</span>
        {outcome ? <span class={`badge outcome-${outcome}`}>{outcome}</span> : null}
        <time dateTime={new Date(record.time).toISOString()}>{new Date(record.time).toLocaleString()}</time>
        {record.mergedCount > 1 ? <span class="meta">merged ×{record.mergedCount}</span> : null}
        <div class="spacer" />
        <button type="button" class="danger small" onClick={onForget} aria-label={`forget record ${record.id}`}>
          Forget
        </button>
      </div>
      <p class="record-text">{record.text}</p>
      {fields ? (
        <dl class="fields">
          {Object.entries(fields).map(([key, value]) => (
            <div key={key}>
              <dt>{key}</dt>
              <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
            </div>
          ))}
        </dl>
      ) : null}
      {record.metadata && Object.keys(record.metadata).length ? <p class="meta">metadata {JSON.stringify(record.metadata)}</p> : null}
    </li>
  );
}

function RecallPlayground({ root, namespace }: { root: string; namespace: string | undefined }) {
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<MemoryHit[]>();
  const [warnings, setWarnings] = useState<string[]>([]);
  const [error, setError] = useState<unknown>();
  const recall = async () => {
    if (!query.trim()) return;
    try {
      const { data } = await call<{ results: MemoryHit[]; warnings: string[] }>('POST', '/v1/memory/recall', {
        query: query.trim(),
        explain: true,
        topK: 10,
        root,
        ...(namespace ? { namespaces: [namespace] } : {}),
      });
      setHits(data.results);
      setWarnings(data.warnings);
      setError(undefined);
    } catch (caught) {
      setError(caught);
    }
  };
  const parts = (hit: MemoryHit): Part[] =>
    Object.entries(hit.explanation ?? {}).map(([signal, part]) => ({ signal, value: part.contribution, detail: `raw ${part.raw.toFixed(3)}, weight ${part.weight}` }));
  return (
    <section aria-labelledby="recall-title" class="recall">
      <h2 id="recall-title">Recall{namespace ? ` in ${namespace}` : ' (all namespaces)'}</h2>
      <form
        class="controls"
        onSubmit={(event) => {
          event.preventDefault();
          void recall();
        }}
      >
        <label class="grow">
          <span class="visually-hidden">Recall query</span>
          <input name="recall" value={query} onInput={(event) => setQuery(event.currentTarget.value)} placeholder="what did the user prefer for tests?" />
        </label>
        <button type="submit">Recall</button>
      </form>
      <ErrorBox error={error} />
      <Warnings warnings={warnings} />
      <ol class="records" aria-label="recalled">
        {(hits ?? []).map((hit) => (
          <li key={hit.id} class="record" data-testid="hit">
            <div class="record-head">
              <span class={`badge kind-${hit.kind}`}>{hit.kind}</span>
              <span class="meta">{hit.namespace}</span>
              <div class="spacer" />
              <span class="score">{hit.score.toFixed(3)}</span>
            </div>
            <p class="record-text">{hit.text}</p>
            <SignalBar parts={parts(hit)} label={`recall score of ${hit.id} by signal`} />
          </li>
        ))}
      </ol>
      {hits?.length === 0 ? <p class="empty">Nothing recalled.</p> : null}
    </section>
  );
}
