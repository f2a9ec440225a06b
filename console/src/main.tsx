import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call, onTokenNeeded, type Indexing } from './api.js';
import { Dialog, ErrorBox } from './components/ui.js';
import { ContextPage } from './pages/context.js';
import { IndexPage } from './pages/index-page.js';
import { MemoryPage } from './pages/memory.js';
import { SearchPage } from './pages/search.js';
import './styles.css';

const PAGES = [
  { id: 'search', label: 'Search' },
  { id: 'context', label: 'Context' },
  { id: 'index', label: 'Index' },
  { id: 'memory', label: 'Memory' },
] as const;
type PageId = (typeof PAGES)[number]['id'];

const pageFromHash = (): PageId => {
  const id = location.hash.replace(/^#\/?/, '').split('?')[0];
  return (PAGES.find((page) => page.id === id)?.id ?? 'search') as PageId;
};

type Theme = 'auto' | 'light' | 'dark';
function applyTheme(theme: Theme): void {
  if (theme === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

function TokenPrompt() {
  const [state, setState] = useState<{ wrong: boolean; resolve: (token: string | null) => void } | undefined>();
  const [value, setValue] = useState('');
  useEffect(() => onTokenNeeded((wrong) => new Promise((resolve) => setState({ wrong, resolve }))), []);
  const close = (token: string | null) => {
    state?.resolve(token);
    setState(undefined);
    setValue('');
  };
  return (
    <Dialog open={state !== undefined} title="This server needs its token" onClose={() => close(null)}>
      <form
        method="dialog"
        onSubmit={(event) => {
          event.preventDefault();
          close(value.trim() || null);
        }}
      >
        {state?.wrong ? (
          <p class="error" role="alert">
            The server refused that token.
          </p>
        ) : null}
        <p>
          Enter the <code>--token</code> (or <code>LOCI_TOKEN</code>) <code>loci serve</code> was started with. It is kept for this tab only.
        </p>
        <label class="field">
          Token <input type="password" name="token" autocomplete="off" value={value} onInput={(event) => setValue(event.currentTarget.value)} autoFocus />
        </label>
        <div class="row">
          <button type="submit">Use token</button>
          <button type="button" class="secondary" onClick={() => close(null)}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function App() {
  const [page, setPage] = useState<PageId>(pageFromHash());
  const [roots, setRoots] = useState<Array<{ name: string; indexing: Indexing }>>([]);
  const [root, setRoot] = useState<string>(sessionStorage.getItem('loci.root') ?? '');
  const [error, setError] = useState<unknown>();
  const [theme, setTheme] = useState<Theme>((localStorage.getItem('loci.theme') as Theme | null) ?? 'auto');

  useEffect(() => {
    const onHash = () => setPage(pageFromHash());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    applyTheme(theme);
    localStorage.setItem('loci.theme', theme);
  }, [theme]);
  useEffect(() => {
    call<{ roots: Array<{ name: string; indexing: Indexing }> }>('GET', '/v1/roots')
      .then(({ data }) => {
        setRoots(data.roots);
        if (!data.roots.some((entry) => entry.name === root)) setRoot(data.roots[0]?.name ?? '');
      })
      .catch(setError);
  }, []);
  useEffect(() => {
    if (root) sessionStorage.setItem('loci.root', root);
  }, [root]);

  return (
    <>
      <header class="top">
        <a class="brand" href="#/search" aria-label="loci console home">
          <img src="/favicon.svg" alt="" width="22" height="22" /> loci
        </a>
        <nav aria-label="pages">
          {PAGES.map((entry) => (
            <a key={entry.id} href={`#/${entry.id}`} aria-current={page === entry.id ? 'page' : undefined}>
              {entry.label}
            </a>
          ))}
        </nav>
        <div class="spacer" />
        <label class="inline">
          Root{' '}
          <select aria-label="root" value={root} onChange={(event) => setRoot(event.currentTarget.value)} disabled={roots.length < 2}>
            {roots.map((entry) => (
              <option key={entry.name} value={entry.name}>
                {entry.name}
              </option>
            ))}
          </select>
        </label>
        <label class="inline">
          Theme{' '}
          <select aria-label="theme" value={theme} onChange={(event) => setTheme(event.currentTarget.value as Theme)}>
            <option value="auto">auto</option>
            <option value="light">light</option>
            <option value="dark">dark</option>
          </select>
        </label>
      </header>
      <main id="main">
        <ErrorBox error={error} />
        {root === '' ? null : page === 'search' ? (
          <SearchPage root={root} />
        ) : page === 'context' ? (
          <ContextPage root={root} />
        ) : page === 'index' ? (
          <IndexPage root={root} />
        ) : (
          <MemoryPage root={root} />
        )}
      </main>
      <TokenPrompt />
    </>
  );
}

render(<App />, document.getElementById('app') as HTMLElement);
