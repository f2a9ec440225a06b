// `loci/mcp`: the MCP server (tools over one or more indexed roots), for embedding it in
// your own process or transport. Node only. `loci mcp` is the ready-made stdio server.
export { createMcpServer } from './mcp-server.js';
export { Roots, type RootState } from '../shared/roots.js';
