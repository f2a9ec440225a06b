import { describe, expect, it } from 'vitest';
import { createLineLimit } from './stdio-line-limit.js';

async function run(chunks: Buffer[], maxLineBytes = 1024) {
  const responses: string[] = [];
  const warnings: string[] = [];
  const limit = createLineLimit({ maxLineBytes, respond: (line) => responses.push(line), warn: (text) => warnings.push(text) });
  const passed: Buffer[] = [];
  limit.on('data', (chunk: Buffer) => passed.push(chunk));
  for (const chunk of chunks) limit.write(chunk);
  limit.end();
  await new Promise((resolve) => limit.on('end', resolve));
  return { passed: Buffer.concat(passed).toString(), responses: responses.map((line) => JSON.parse(line)), warnings };
}

describe('createLineLimit', () => {
  it('passes lines within the limit unchanged, across chunk boundaries', async () => {
    const out = await run([Buffer.from('{"jsonrpc":"2.0","id":1,'), Buffer.from('"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n')]);
    expect(out.passed).toBe('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    expect(out.responses).toEqual([]);
  });

  it('drops an overlong line with an error carrying its id, and keeps the next one', async () => {
    const big = `{"method":"tools/call","params":{"text":"${'a'.repeat(5000)}"},"jsonrpc":"2.0","id":7}\n`;
    const pieces = [];
    for (let at = 0; at < big.length; at += 700) pieces.push(Buffer.from(big.slice(at, at + 700)));
    const out = await run([...pieces, Buffer.from('{"jsonrpc":"2.0","id":8,"method":"ping"}\n')]);
    expect(out.passed).toBe('{"jsonrpc":"2.0","id":8,"method":"ping"}\n');
    expect(out.responses).toEqual([{ jsonrpc: '2.0', id: 7, error: { code: -32600, message: expect.stringMatching(/limit is 1024/) } }]);
    expect(out.warnings).toHaveLength(1);
  });

  it('refuses a line nested too deep', async () => {
    const out = await run([Buffer.from(`{"jsonrpc":"2.0","id":"x","params":${'['.repeat(100)}${']'.repeat(100)}}\n`)]);
    expect(out.passed).toBe('');
    expect(out.responses[0]).toMatchObject({ id: 'x', error: { code: -32600 } });
  });
});
