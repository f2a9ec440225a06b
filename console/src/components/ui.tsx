import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api.js';

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const api = error instanceof ApiError ? error : undefined;
  return (
    <div class="error" role="alert">
      <b>{api ? api.code : 'Error'}</b> {error instanceof Error ? error.message : String(error)}
      {api?.hint ? <div class="hint">{api.hint}</div> : null}
    </div>
  );
}

export function Warnings({ warnings }: { warnings: readonly string[] | undefined }) {
  if (!warnings?.length) return null;
  return (
    <ul class="warnings" aria-label="warnings">
      {warnings.map((warning) => (
        <li key={warning}>{warning}</li>
      ))}
    </ul>
  );
}

/** The value, once it has stopped changing for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** A modal dialog (the platform's <dialog>: focus trapped, Esc closes). */
export function Dialog({ open, title, onClose, children }: { open: boolean; title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  // In the same commit as the render (a plain effect waits for the next frame): once the page
  // behind it shows, a closed dialog is closed, and no keystroke goes to it.
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  // Esc: the page closes the dialog through its state (the close event would also follow closes the page made).
  const cancel = (event: Event) => {
    event.preventDefault();
    onClose();
  };
  return (
    <dialog ref={ref} aria-label={title} onCancel={cancel}>
      <h2>{title}</h2>
      {children}
    </dialog>
  );
}

export function Stat({ label, value, testid }: { label: string; value: ComponentChildren; testid?: string }) {
  return (
    <div class="stat">
      <div class="stat-value" data-testid={testid}>
        {value}
      </div>
      <div class="stat-label">{label}</div>
    </div>
  );
}

/** Text to the clipboard; falls back to selecting it when the page may not write there (plain http). */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}
