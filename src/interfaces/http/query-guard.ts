import type { MiddlewareHandler } from 'hono';

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  names: ReadonlySet<string>;
}

type Paths = Record<string, object>;
type Parameters = ReadonlyArray<{ name: string; in: string }>;

/** Each documented operation with the query parameters it takes, from the OpenAPI paths. */
function operationsOf(paths: Paths): Operation[] {
  const operations: Operation[] = [];
  for (const [template, methods] of Object.entries(paths)) {
    const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const [method, operation] of Object.entries(methods as Record<string, { parameters?: Parameters }>)) {
      const names = new Set((operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name));
      operations.push({ method: method.toUpperCase(), template, pattern, names });
    }
  }
  return operations;
}

/**
 * Refuses a query parameter the route does not take, as the JSON bodies refuse unknown keys: a
 * misspelled `?namespaces=bob` would otherwise be dropped and widen a listing or an export to
 * every namespace. The parameters each route takes are the ones /openapi.json documents.
 */
export function queryGuard(paths: Paths): MiddlewareHandler {
  const operations = operationsOf(paths);
  return async (c, next) => {
    const url = new URL(c.req.url);
    if (url.search.length > 1) {
      const operation = operations.find((candidate) => candidate.method === c.req.method && candidate.pattern.test(c.req.path));
      if (operation) {
        for (const name of new Set(url.searchParams.keys())) {
          if (operation.names.has(name)) continue;
          const takes = [...operation.names];
          // Answered here, not thrown: the error handler shortens absolute file paths, and a route is not one.
          const hint = takes.length > 0 ? `It takes ${takes.join(', ')} (see /openapi.json).` : 'It takes none: send the values in the JSON body (see /openapi.json).';
          return c.json({ error: { code: 'INVALID_ARGUMENT', message: `${c.req.method} ${operation.template} takes no query parameter ${JSON.stringify(name.slice(0, 100))}.`, hint } }, 400);
        }
      }
    }
    return next();
  };
}
