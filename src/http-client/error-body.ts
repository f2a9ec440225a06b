const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]+/g;

/**
 * A provider's error body as one short, printable line: the message out of the usual JSON
 * shapes (OpenAI and Google `{error:{message}}`, Cohere `{message}`, Voyage and FastAPI
 * `{detail}`, `{error:"…"}`), the text of an HTML error page, or the raw text, without
 * control characters (the body comes from the server, and may end up on a terminal).
 */
export function describeBody(text: string, limit = 300): string {
  const trimmed = text.trim();
  let detail = trimmed;
  if (/^[[{]/.test(trimmed)) {
    try {
      detail = messageOf(JSON.parse(trimmed)) ?? trimmed;
    } catch {
      // Not JSON after all: shown as text.
    }
  } else if (/^<(!doctype|html|\?xml|[a-z][a-z0-9]*[\s>/])/i.test(trimmed)) {
    detail = trimmed.replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ').replace(/<[^>]*>/g, ' ');
  }
  const flat = detail.replace(CONTROL_CHARACTERS, ' ').replace(/\s+/g, ' ').trim();
  if (flat === '') return '(empty body)';
  return flat.length > limit ? `${flat.slice(0, limit)}…` : flat;
}

function messageOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (!value || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  for (const key of ['error', 'message', 'detail', 'error_description']) {
    const inner = record[key];
    if (typeof inner === 'string' && inner.trim() !== '') return inner;
    if (inner && typeof inner === 'object') {
      const nested = messageOf(inner);
      if (nested) return nested;
    }
  }
  return undefined;
}

/** URLs may carry keys (Gemini's ?key=, user:password@): never print them. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    for (const name of ['key', 'api_key', 'apikey', 'token', 'access_token']) if (parsed.searchParams.has(name)) parsed.searchParams.set(name, '***');
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}
