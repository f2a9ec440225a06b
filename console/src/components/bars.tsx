export interface Part {
  signal: string;
  value: number;
  /** Shown in the tooltip (raw score, weight…). */
  detail?: string;
}

/** Signals without a colour of their own get one of these, in order. */
const PALETTE = ['#8a63d2', '#d9822b', '#c2418b', '#0f9bb5', '#7a8a1f', '#b5651d'];
const KNOWN = new Set(['lexical', 'vector', 'mention']);
const colourOf = (parts: Part[], signal: string): string | undefined => {
  if (KNOWN.has(signal)) return undefined;
  const index = parts.filter((part) => !KNOWN.has(part.signal)).findIndex((part) => part.signal === signal);
  return PALETTE[index % PALETTE.length];
};

const fmt = (value: number): string => (Math.abs(value) >= 100 ? value.toFixed(1) : value.toFixed(3));

/** A score broken into its signals: one stacked bar, each part labelled with its value. */
export function SignalBar({ parts, label }: { parts: Part[]; label: string }) {
  const positive = parts.filter((part) => part.value > 0);
  const total = positive.reduce((sum, part) => sum + part.value, 0);
  return (
    <figure class="signals" aria-label={label}>
      <div class="bar" aria-hidden="true">
        {positive.map((part) => (
          <span
            key={part.signal}
            class={`seg sig-${part.signal}`}
            style={{ width: `${total > 0 ? (part.value / total) * 100 : 0}%`, background: colourOf(parts, part.signal) }}
            title={`${part.signal} ${fmt(part.value)}${part.detail ? ` (${part.detail})` : ''}`}
          />
        ))}
      </div>
      <ul class="legend">
        {parts.map((part) => (
          <li key={part.signal} data-signal={part.signal} data-value={part.value} title={part.detail}>
            <span class={`dot sig-${part.signal}`} style={{ background: colourOf(parts, part.signal) }} aria-hidden="true" />
            {part.signal} <b>{fmt(part.value)}</b>
          </li>
        ))}
      </ul>
    </figure>
  );
}

/** A gauge of a budget: used against soft and hard limits. */
export function Gauge({ used, soft, hard, unit }: { used: number; soft: number; hard: number; unit: string }) {
  const pct = (value: number) => `${Math.min(100, (value / hard) * 100)}%`;
  return (
    <div class="gauge">
      <meter class="visually-hidden" min={0} max={hard} high={soft} value={used} aria-label={`${used} of ${hard} ${unit} (soft budget ${soft})`} />
      <div class={`fill${used > soft ? ' over' : ''}`} style={{ width: pct(used) }} />
      <div class="tick soft" style={{ left: pct(soft) }} title={`soft budget ${soft}`} />
      <div class="gauge-labels">
        <span>
          <b data-testid="context-tokens">{used}</b> {unit}
        </span>
        <span>
          soft {soft} · hard {hard}
        </span>
      </div>
    </div>
  );
}
