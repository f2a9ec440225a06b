import { useState } from 'preact/hooks';
import { call, type ContextReply, type ContextRequest } from '../api.js';
import { Gauge } from '../components/bars.js';
import { copyText, ErrorBox, Warnings } from '../components/ui.js';

const REASONS: Record<string, string> = {
  'soft-budget': 'the soft budget was reached',
  'hard-budget': 'it would cross the hard limit',
  refit: 'removed so the finished prompt fits',
};

/** The exact prompt `loci context` builds for a question and a budget, and how the budget was spent. */
export function ContextPage({ root }: { root: string }) {
  const [question, setQuestion] = useState('');
  const [maxTokens, setMaxTokens] = useState(8000);
  const [paths, setPaths] = useState('');
  const [reply, setReply] = useState<ContextReply>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [copied, setCopied] = useState('');

  const build = async () => {
    if (!question.trim()) return;
    const body: ContextRequest = { question: question.trim(), maxTokens, root, ...(paths.trim() ? { paths: paths.split(/[\s,]+/).filter(Boolean) } : {}) };
    setBusy(true);
    try {
      setReply((await call<ContextReply>('POST', '/v1/context', body)).data);
      setError(undefined);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  const copy = async (what: 'text' | 'messages') => {
    if (!reply) return;
    const ok = await copyText(what === 'text' ? reply.prompt : JSON.stringify(reply.messages, null, 2));
    setCopied(ok ? `Copied as ${what === 'text' ? 'text' : 'OpenAI messages'}.` : 'The browser refused the clipboard.');
  };

  return (
    <section aria-labelledby="context-title">
      <h1 id="context-title">Context preview</h1>
      <form
        class="controls"
        onSubmit={(event) => {
          event.preventDefault();
          void build();
        }}
      >
        <label class="grow">
          Question <input name="question" value={question} onInput={(event) => setQuestion(event.currentTarget.value)} placeholder="how are lexical and vector scores fused" />
        </label>
        <label>
          Max tokens <input name="maxTokens" type="number" min={100} max={1000000} value={maxTokens} onInput={(event) => setMaxTokens(Number(event.currentTarget.value) || 8000)} />
        </label>
        <label>
          Paths <input name="paths" value={paths} onInput={(event) => setPaths(event.currentTarget.value)} size={14} placeholder="src/**" />
        </label>
        <button type="submit" disabled={busy || !question.trim()}>
          {busy ? 'Building…' : 'Build context'}
        </button>
      </form>
      <ErrorBox error={error} />
      {reply ? (
        <>
          <Gauge used={reply.tokens} soft={reply.packing.softTokens} hard={reply.packing.hardTokens} unit={reply.unit} />
          <p class="meta">
            {reply.mode} · {reply.tokenizer} · overhead (system, question, history) {reply.packing.overheadTokens} {reply.unit}
            {reply.degraded ? ` · degraded: ${reply.degradedParts.join(', ')}` : ''}
          </p>
          <Warnings warnings={reply.warnings} />
          <div class="row">
            <button type="button" onClick={() => void copy('text')}>
              Copy as text
            </button>
            <button type="button" onClick={() => void copy('messages')}>
              Copy as OpenAI messages
            </button>
            <span class="meta" aria-live="polite">
              {copied}
            </span>
          </div>
          <h2>Sent, in order</h2>
          <table class="items" aria-label="items sent">
            <thead>
              <tr>
                <th>#</th>
                <th>file and lines</th>
                <th>why</th>
                <th class="num">score</th>
                <th class="num">{reply.unit}</th>
              </tr>
            </thead>
            <tbody>
              {reply.packing.items.map((item, index) => (
                <tr key={`${item.path}:${item.startLine}`} data-testid="context-item">
                  <td>{index + 1}</td>
                  <td class="path">
                    {item.path}:{item.startLine}-{item.endLine}
                  </td>
                  <td>{item.origin}</td>
                  <td class="num">{item.score.toFixed(3)}</td>
                  <td class="num">{item.tokens}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h2>Left out ({reply.packing.dropped.length})</h2>
          {reply.packing.dropped.length === 0 ? (
            <p class="meta">Nothing: every retrieved item fit.</p>
          ) : (
            <table class="items" aria-label="items left out">
              <thead>
                <tr>
                  <th>file and lines</th>
                  <th>reason</th>
                  <th class="num">score</th>
                  <th class="num">{reply.unit}</th>
                </tr>
              </thead>
              <tbody>
                {reply.packing.dropped.map((item) => (
                  <tr key={`${item.path}:${item.startLine}:${item.reason}`} data-testid="context-dropped">
                    <td class="path">
                      {item.path}:{item.startLine}-{item.endLine}
                    </td>
                    <td>{REASONS[item.reason] ?? item.reason}</td>
                    <td class="num">{item.score.toFixed(3)}</td>
                    <td class="num">{item.tokens ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <h2>The prompt</h2>
          <figure aria-labelledby="prompt-caption">
            <figcaption id="prompt-caption" class="visually-hidden">
              prompt text
            </figcaption>
            <pre class="prompt">{reply.prompt}</pre>
          </figure>
        </>
      ) : null}
    </section>
  );
}
