import { describe, expect, it } from 'vitest';
import { commandsFor, runCli } from './run-cli.js';

const io = () => {
  let out = '';
  let err = '';
  return {
    io: {
      stdout: {
        write: (text: string) => {
          out += text;
          return true;
        },
      },
      stderr: {
        write: (text: string) => {
          err += text;
          return true;
        },
      },
      env: {},
      cwd: process.cwd(),
    },
    out: () => out,
    err: () => err,
  };
};

describe('the CLI loads only the command it runs', () => {
  it('loads no command for --version, one for a command, all for help or a typo', () => {
    expect(commandsFor(['--version'])).toHaveLength(0);
    expect(commandsFor(['-v'])).toHaveLength(0);
    expect(commandsFor(['search', 'retry with backoff', '--top-k', '5'])).toHaveLength(1);
    expect(commandsFor(['ask', 'why'])).toHaveLength(1);
    expect(commandsFor(['mcp', '--print-config', 'claude'])).toHaveLength(1);
    expect(commandsFor(['--help']).length).toBeGreaterThan(10);
    expect(commandsFor([]).length).toBeGreaterThan(10);
    expect(commandsFor(['serach', 'x']).length).toBeGreaterThan(10);
  });

  it('still lists every command in help, and suggests the right one for a typo', async () => {
    const help = io();
    expect(await runCli(['--help'], help.io as never)).toBe(0);
    for (const name of ['index', 'search', 'status', 'memory', 'knowledge', 'context', 'ask', 'serve', 'mcp', 'trust', 'doctor', 'eval', 'watch', 'gc', 'migrate'])
      expect(help.out()).toContain(`  ${name}`);
    const typo = io();
    expect(await runCli(['serach', 'x'], typo.io as never)).toBe(2);
    expect(typo.err()).toContain('search');
    const version = io();
    expect(await runCli(['--version'], version.io as never)).toBe(0);
    expect(version.out()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
