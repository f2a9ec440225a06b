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

describe('with --json, errors are JSON too', () => {
  const parsed = (text: string) => {
    const lines = text.trim().split('\n');
    expect(lines).toHaveLength(1);
    return JSON.parse(lines[0] as string).error;
  };

  it('prints a loci error as one JSON line on stderr, with its exit code, and nothing on stdout', async () => {
    const run = io();
    const missing = `/nonexistent-${process.pid}`;
    const code = await runCli(['search', 'retry', '--store', missing, '--root', missing, '--json'], run.io as never);
    expect(code).toBe(3);
    expect(run.out()).toBe('');
    const error = parsed(run.err());
    expect(error).toMatchObject({ exitCode: 3 });
    expect(error.code).toMatch(/_NOT_FOUND$/);
    expect(error.message.length).toBeGreaterThan(10);
    expect(error.hint.length).toBeGreaterThan(10);
  });

  it('prints a usage error (an unknown option, a bad value) as JSON, not text and help', async () => {
    const unknown = io();
    expect(await runCli(['search', 'retry', '--json', '--top-kk', '5'], unknown.io as never)).toBe(2);
    const error = parsed(unknown.err());
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', exitCode: 2, details: { usage: 'commander.unknownOption' } });
    expect(error.message).toContain('--top-kk');
    expect(error.message).toContain('--top-k');
  });

  it('keeps text errors without --json, and a --json after -- is an argument, not the flag', async () => {
    const text = io();
    expect(await runCli(['search', 'retry', '--top-kk', '5'], text.io as never)).toBe(2);
    expect(text.err()).toMatch(/^loci: unknown option '--top-kk'/);
    expect(() => JSON.parse(text.err())).toThrow();
    const quoted = io();
    expect(await runCli(['search', '--top-kk', '--', '--json'], quoted.io as never)).toBe(2);
    expect(quoted.err()).toMatch(/^loci: /);
  });
});
