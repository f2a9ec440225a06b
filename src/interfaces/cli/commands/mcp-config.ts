import { fileURLToPath } from 'node:url';
import { LociError } from '../../../errors/index.js';
import { compiledModule } from '../../../package-files.js';

export const mcpClients = ['claude', 'cursor', 'continue', 'vscode'] as const;
export type McpClient = (typeof mcpClients)[number];

/** Where each client reads its MCP servers from (shown with the entry). */
const configFile: Record<McpClient, string> = {
  claude: '.mcp.json in the project (Claude Code), or claude_desktop_config.json (Claude Desktop)',
  cursor: '.cursor/mcp.json in the project, or ~/.cursor/mcp.json',
  continue: '.continue/mcpServers/loci.yaml in the project (or mcpServers in ~/.continue/config.yaml)',
  vscode: '.vscode/mcp.json in the project',
};

/**
 * The exact MCP server entry for a client: this Node and this loci by absolute path (so it
 * works whatever the client's PATH), `mcp`, and the roots given (absolute).
 */
export function mcpConfigFor(client: string, roots: readonly string[]): { file: string; text: string } {
  if (!(mcpClients as readonly string[]).includes(client)) throw new LociError('INVALID_ARGUMENT', `--print-config takes one of ${mcpClients.join(', ')}; got "${client}".`);
  const command = process.execPath;
  const args = [fileURLToPath(compiledModule('interfaces/cli/main.js')), 'mcp', ...roots.flatMap((root) => ['--root', root])];
  const entry = { command, args };
  const name = client as McpClient;
  let text: string;
  if (name === 'vscode') text = JSON.stringify({ servers: { loci: { type: 'stdio', ...entry } } }, null, 2);
  else if (name === 'continue')
    text = [
      'name: loci',
      'version: 0.0.1',
      'schema: v1',
      'mcpServers:',
      '  - name: loci',
      `    command: ${JSON.stringify(command)}`,
      '    args:',
      ...args.map((arg) => `      - ${JSON.stringify(arg)}`),
    ].join('\n');
  else text = JSON.stringify({ mcpServers: { loci: entry } }, null, 2);
  return { file: configFile[name], text: `${text}\n` };
}
