// `loci/http`: the HTTP API as a Hono app (mount it, or serve it with @hono/node-server).
// Node only. `loci serve` is the ready-made server.
export { createHttpApp, type HttpAppOptions } from './http-app.js';
export type { HostPolicy } from './web-guard.js';
export { Roots, type RootState } from '../shared/roots.js';
