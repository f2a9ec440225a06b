import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoci, type Loci } from '../engine/create-loci.js';
import { openAICompatibleChat } from '../llm/openai-compatible.js';
import { FakeChatServer } from '../llm/test-support/fake-chat-server.js';
import { buildContext, parseQuestion } from './build-context.js';
import { mergeOverlaps, packItems, type ContextItem } from './pack.js';
import { buildRepoMap } from './repo-map.js';
import { apiReranker } from './rerank/api-reranker.js';
import { llmYesNoReranker } from './rerank/llm-yes-no.js';
import { mmrReranker } from './rerank/mmr.js';
import { rerankItems } from './rerank/rerank.js';
import { parseTemplate, renderMessages } from './templates.js';
import { loadTokenCounter } from './tokenizer.js';

let workspace: string;
let repo: string;
let loci: Loci;
const server = new FakeChatServer();

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'loci-context-'));
  repo = join(workspace, 'repo');
  await mkdir(join(repo, 'src'), { recursive: true });
  const topics = ['billing', 'refunds', 'invoices', 'shipping', 'inventory', 'search', 'auth', 'sessions', 'emails', 'reports'];
  for (const topic of topics) {
    const body = Array.from({ length: 40 }, (_, index) => `export function ${topic}Step${index}(input: number): number {\n  // ${topic} step ${index}\n  return input + ${index};\n}`).join('\n\n');
    await writeFile(join(repo, 'src', `${topic}.ts`), body);
  }
  await writeFile(join(repo, 'README.md'), '# Shop\n\nRefunds are issued by refundsStep3 after billing confirms the charge.\n');
  loci = createLoci({ root: repo });
  await loci.index();
  await server.start();
});

afterAll(async () => {
  await loci.close();
  await server.stop();
  await rm(workspace, { recursive: true, force: true });
});

const item = (path: string, startLine: number, endLine: number, score: number, text?: string): ContextItem => ({
  path,
  startLine,
  endLine,
  score,
  text: text ?? Array.from({ length: endLine - startLine + 1 }, (_, index) => `line ${startLine + index}`).join('\n'),
});

describe('packing', () => {
  it('never exceeds the hard limit, for any items and limits (property)', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let trial = 0; trial < 500; trial++) {
      const items = Array.from({ length: 1 + Math.floor(random() * 30) }, () => {
        const start = 1 + Math.floor(random() * 200);
        return item(`f${Math.floor(random() * 5)}.ts`, start, start + Math.floor(random() * 40), random(), undefined);
      });
      const hardLimit = 1 + Math.floor(random() * 3000);
      const softLimit = Math.floor(random() * hardLimit * 1.5);
      const cost = (candidate: ContextItem) => candidate.text.length + 10;
      const packed = packItems(items, { hardLimit, softLimit, cost });
      expect(packed.used).toBeLessThanOrEqual(hardLimit);
      expect(packed.items.reduce((sum, chosen) => sum + cost(chosen), 0)).toBe(packed.used);
      // No line is sent twice.
      for (const path of new Set(packed.items.map((chosen) => chosen.path))) {
        const ranges = packed.items.filter((chosen) => chosen.path === path).sort((a, b) => a.startLine - b.startLine);
        for (let index = 1; index < ranges.length; index++) expect((ranges[index] as ContextItem).startLine).toBeGreaterThan((ranges[index - 1] as ContextItem).endLine);
      }
    }
  });

  it('skips an item that would cross the limit and tries the next; orders best file first, lines in order', () => {
    const packed = packItems([item('a.ts', 50, 59, 0.9), item('b.ts', 1, 400, 0.8), item('a.ts', 1, 5, 0.5), item('c.ts', 1, 3, 0.1)], {
      hardLimit: 200,
      cost: (candidate) => candidate.text.length / 4,
    });
    expect(packed.items.map((chosen) => `${chosen.path}:${chosen.startLine}`)).toEqual(['a.ts:1', 'a.ts:50', 'c.ts:1']);
    expect(packed.skipped.map((skipped) => skipped.path)).toEqual(['b.ts']);
    expect(packed.dropped.map(({ item: left, reason, cost }) => [left.path, reason, cost])).toEqual([['b.ts', 'hard-budget', 872.75]]);
  });

  it('says why each item was left out: past the soft budget, or over the hard one', () => {
    const packed = packItems([item('a.ts', 1, 40, 0.9), item('b.ts', 1, 400, 0.8), item('c.ts', 1, 40, 0.5), item('d.ts', 1, 3, 0.1)], {
      hardLimit: 600,
      softLimit: 150,
      cost: (candidate) => candidate.text.length / 4,
    });
    expect(packed.items.map((chosen) => chosen.path)).toEqual(['a.ts', 'c.ts']);
    expect(packed.dropped.map(({ item: left, reason }) => [left.path, reason])).toEqual([
      ['b.ts', 'hard-budget'],
      ['d.ts', 'soft-budget'],
    ]);
  });

  it('merges overlapping and touching chunks of a file', () => {
    const merged = mergeOverlaps([item('a.ts', 1, 10, 0.2), item('a.ts', 8, 15, 0.9), item('a.ts', 16, 18, 0.1), item('a.ts', 30, 31, 0.3)]);
    expect(merged.map((chosen) => [chosen.startLine, chosen.endLine, chosen.score])).toEqual([
      [1, 18, 0.9],
      [30, 31, 0.3],
    ]);
    expect((merged[0] as ContextItem).text.split('\n')).toEqual(Array.from({ length: 18 }, (_, index) => `line ${index + 1}`));
  });
});

describe('buildContext', () => {
  it('keeps the whole prompt within --max-tokens for any limit (property, real tokenizer)', async () => {
    const counter = await loadTokenCounter('o200k');
    for (const maxTokens of [120, 200, 333, 500, 777, 1000, 1500, 2500, 4000]) {
      const built = await buildContext(loci, 'how are refunds issued after billing', { maxTokens, smallProject: false });
      expect(built.tokens).toBeLessThanOrEqual(maxTokens);
      expect(counter.count(built.prompt)).toBe(built.tokens);
      // The breakdown accounts for the prompt: sent items plus overhead come to about the total.
      const itemized = built.packing.overheadTokens + built.packing.items.reduce((sum, entry) => sum + entry.tokens, 0);
      expect(Math.abs(itemized - built.tokens)).toBeLessThanOrEqual(built.packing.items.length * 3 + 3);
      expect(built.packing.items.length + built.packing.dropped.length).toBeGreaterThanOrEqual(built.items.length);
      expect(built.skipped).toBe(built.packing.dropped.length);
      if (maxTokens >= 1000) expect(built.sources.length).toBeGreaterThan(0);
    }
  });

  it('gives numbered contexts with paths and lines, and messages with no context message when nothing passes', async () => {
    const built = await buildContext(loci, 'refundsStep3', { maxTokens: 3000, smallProject: false });
    expect(built.prompt).toMatch(/\[1\] src\/refunds\.ts:\d+-\d+/);
    expect(built.messages.map((message) => message.role)).toEqual(['system', 'system', 'user']);
    const none = await buildContext(loci, 'zebra quantum', { maxTokens: 3000, smallProject: false, threshold: 1e9 });
    expect(none.sources).toEqual([]);
    expect(none.messages.map((message) => message.role)).toEqual(['system', 'user']);
    expect(renderMessages({ system: 's', history: [{ userQuery: 'q1', assistantResponse: 'a1' }], items: [], question: 'q2' }).map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
    ]);
  });

  it('sends /all within the limit or fails with the size; includes @paths first', async () => {
    const all = await buildContext(loci, '/all src/re*.ts what do these do', { maxTokens: 20_000 });
    expect(all.mode).toBe('all');
    expect(all.sources.map((source) => source.path).sort()).toEqual(['src/refunds.ts', 'src/reports.ts']);
    await expect(buildContext(loci, '/all what does everything do', { maxTokens: 2000 })).rejects.toMatchObject({
      code: 'CONTEXT_TOO_LARGE',
      message: expect.stringMatching(/matches 11 files of \d+ tokens/),
    });
    // A mask that reaches outside the project is refused like a path; one that matches nothing says so.
    for (const mask of ['../**', '/etc/*', 'src/../../**']) {
      await expect(buildContext(loci, `/all ${mask} what is there`, { maxTokens: 2000 }), mask).rejects.toMatchObject({ code: 'PATH_OUTSIDE_ROOT' });
      await expect(buildContext(loci, 'what is there', { maxTokens: 2000, all: mask }), mask).rejects.toMatchObject({ code: 'PATH_OUTSIDE_ROOT' });
    }
    const none = await buildContext(loci, '/all nosuchdir/** what is there', { maxTokens: 2000 });
    expect(none.sources).toEqual([]);
    expect(none.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/\/all nosuchdir\/\*\* matches no indexed file/)]));
    const included = await buildContext(loci, 'explain @README.md please', { maxTokens: 1500, smallProject: false });
    expect(included.sources[0]).toEqual({ path: 'README.md', startLine: 1, endLine: 3 });
    await expect(buildContext(loci, 'x @src/missing.ts', { maxTokens: 1500 })).rejects.toMatchObject({ code: 'FILE_NOT_FOUND', message: expect.stringMatching(/src\/missing\.ts/) });
    // An @word under no folder of the project (a package scope in pasted code) is part of the question.
    const pasted = await buildContext(loci, 'why does // eslint-disable-next-line @typescript-eslint/no-explicit-any fail here', { maxTokens: 1500, smallProject: false });
    expect(pasted.sources.every((source) => !source.path.includes('typescript-eslint'))).toBe(true);
    expect(pasted.warnings).toEqual(expect.arrayContaining([expect.stringContaining('"@typescript-eslint/no-explicit-any" names no folder of the project')]));
    await expect(buildContext(loci, 'x @../outside.ts', { maxTokens: 1500 })).rejects.toMatchObject({ code: 'PATH_OUTSIDE_ROOT' });
    expect(parseQuestion('/all what is here').allMask).toBe('');
    expect(parseQuestion('/all *.md summarise @docs/a.md')).toEqual({ question: 'summarise docs/a.md', mentioned: ['docs/a.md'], allMask: '*.md' });
  });

  it('sends a small project whole', async () => {
    const small = join(workspace, 'small');
    await mkdir(small);
    await writeFile(join(small, 'a.py'), 'def add(a, b):\n    return a + b\n');
    await writeFile(join(small, 'b.py'), 'def sub(a, b):\n    return a - b\n');
    const engine = createLoci({ root: small });
    await engine.index();
    const built = await buildContext(engine, 'subtract numbers', { maxTokens: 2000 });
    await engine.close();
    expect(built.mode).toBe('small-project');
    expect(built.sources.map((source) => source.path)).toEqual(['b.py', 'a.py']);
  });

  it('builds a budgeted repo map and lets a model pick files', async () => {
    const counter = await loadTokenCounter('o200k');
    const map = buildRepoMap({ files: await loci.files(), outline: await loci.outline() }, 120, (text) => counter.count(text));
    expect(map.size).toBeLessThanOrEqual(120);
    expect(map.text).toMatch(/src\/billing\.ts/);
    expect(map.truncated).toBe(true);
    server.answer = (request) => (request.body.messages?.[0]?.content.includes('pick the files') ? '- src/shipping.ts\n- src/nope.ts\n' : 'x');
    const chat = openAICompatibleChat({ baseUrl: server.baseUrl, model: 'tiny' });
    const built = await buildContext(loci, 'step input number', { maxTokens: 1500, smallProject: false, pickFilesWith: chat });
    expect(built.pickedFiles).toEqual(['src/shipping.ts']);
    expect(built.sources[0]?.path).toBe('src/shipping.ts');
  });

  it('puts a stored conversation in the prompt by its id, within its budget, as every door does', async () => {
    const memory = await loci.memory();
    let time = Date.UTC(2024, 0, 1);
    for (const [userQuery, assistantResponse] of [
      ['What is the refund window?', 'Thirty days from purchase.'],
      ['Which step issues the refund?', 'refundsStep3, after billing confirms.'],
      ['Unrelated: lunch?', 'Noodles at noon. '.repeat(40)],
    ] as const) {
      await memory.addTurn({ conversationId: 'shop-1', userQuery, assistantResponse, time: (time += 60_000) });
    }
    const built = await buildContext(loci, 'how are refunds issued', { maxTokens: 3000, conversationId: 'shop-1', historyTokens: 120 });
    expect(built.prompt).toContain('refundsStep3, after billing confirms.');
    expect(built.prompt).not.toContain('Noodles at noon.'); // over the history budget
    expect(built.conversation).toMatchObject({ id: 'shop-1', turns: 2, omitted: 1 });
    expect(built.conversation?.tokens).toBeLessThanOrEqual(120);
    expect(built.tokens).toBeLessThanOrEqual(3000);
    // The same turns as history given by hand.
    const byHand = await buildContext(loci, 'how are refunds issued', {
      maxTokens: 3000,
      history: [
        { userQuery: 'What is the refund window?', assistantResponse: 'Thirty days from purchase.' },
        { userQuery: 'Which step issues the refund?', assistantResponse: 'refundsStep3, after billing confirms.' },
      ],
    });
    expect(built.prompt).toBe(byHand.prompt);
    // A conversation with no turns yet adds none.
    const none = await buildContext(loci, 'how are refunds issued', { maxTokens: 3000, conversationId: 'never-seen' });
    expect(none.conversation).toMatchObject({ turns: 0, omitted: 0 });
    expect(none.prompt).not.toContain('Conversation so far');
    // Ambiguous or incomplete requests are refused, naming what to change.
    const codeOf = (promise: Promise<unknown>) =>
      promise.then(
        () => 'resolved',
        (error: { code?: string; message?: string }) => `${error.code}: ${error.message}`,
      );
    expect(await codeOf(buildContext(loci, 'refunds', { conversationId: 'shop-1', history: [] }))).toMatch(/^INVALID_ARGUMENT: Give either history/);
    expect(await codeOf(buildContext(loci, 'refunds', { historyTokens: 100 }))).toMatch(/^INVALID_ARGUMENT: historyTokens needs a conversationId/);
    expect(await codeOf(buildContext(loci, 'refunds', { conversationId: 'shop-1', historyTokens: 0 }))).toMatch(/^INVALID_ARGUMENT: historyTokens must be/);
    expect(await codeOf(buildContext(loci, 'refunds', { historyTokens: '200' as unknown as number, conversationId: 'shop-1' }))).toMatch(
      /^INVALID_ARGUMENT: Invalid context options: historyTokens: .*expected number, received string/,
    );
    // Chat messages where turns belong are refused, saying how to pass them.
    expect(await codeOf(buildContext(loci, 'refunds', { history: [{ role: 'user', content: 'hi' }] as never }))).toMatch(
      /^INVALID_ARGUMENT: history\[0\] must be a turn \{userQuery, assistantResponse\}/,
    );
    expect(await codeOf(buildContext(loci, 'refunds', { history: 'hello' as never }))).toMatch(/^INVALID_ARGUMENT: history must be an array/);
    // A budget no turn fits is said, not silent.
    const tight = await buildContext(loci, 'how are refunds issued', { maxTokens: 3000, conversationId: 'shop-1', historyTokens: 3 });
    expect(tight.conversation).toMatchObject({ turns: 0, omitted: 3 });
    expect(tight.warnings.join(' ')).toMatch(/None of the 3 turns of conversation "shop-1" fits its history budget/);
    // Turns stored in a namespace of the caller's choosing are found by naming it.
    await memory.addTurn({ conversationId: 'agent-7', namespace: 'agents/seven', userQuery: 'Where do deploys go?', assistantResponse: 'To the blue cluster.' });
    expect((await buildContext(loci, 'deploys', { maxTokens: 3000, conversationId: 'agent-7' })).conversation?.turns).toBe(0);
    const named = await buildContext(loci, 'deploys', { maxTokens: 3000, conversationId: 'agent-7', conversationNamespace: 'agents/seven' });
    expect(named.prompt).toContain('To the blue cluster.');
    expect(await codeOf(buildContext(loci, 'deploys', { conversationNamespace: 'agents/seven' }))).toMatch(/^INVALID_ARGUMENT: conversationNamespace needs a conversationId/);
    const { memory: _memory, ...withoutMemory } = {
      root: loci.root,
      search: loci.search.bind(loci),
      files: loci.files.bind(loci),
      outline: loci.outline.bind(loci),
      sourceReader: loci.sourceReader.bind(loci),
      memory: undefined,
    };
    expect(await codeOf(buildContext(withoutMemory, 'refunds', { conversationId: 'shop-1' }))).toMatch(/^INVALID_ARGUMENT: conversationId needs a source with memory/);
  });

  it('custom templates: placeholders checked', () => {
    expect(() => parseTemplate('{{system}} {{oops}} {{question}}')).toThrow(/unknown placeholder \{\{oops\}\}/);
    expect(() => parseTemplate('{{system}}')).toThrow(/no \{\{question\}\}/);
  });
});

describe('rerankers', () => {
  const items = [
    item('a.ts', 1, 2, 0.9, 'function unrelated() {}'),
    item('b.ts', 1, 2, 0.5, 'function refundCharge() { issue refund }'),
    item('c.ts', 1, 2, 0.4, 'function refundCharge() { issue refund }'),
  ];

  it('LLM yes/no puts relevant snippets first and caches verdicts', async () => {
    server.answer = (request) => (request.body.messages?.[1]?.content.includes('refund') && request.body.messages[1].content.includes('Snippet:\n```b.ts') ? 'Yes' : 'No');
    const cache = new Map<string, boolean>();
    const reranker = llmYesNoReranker(openAICompatibleChat({ baseUrl: server.baseUrl, model: 'tiny' }), { cache });
    const before = server.requests.length;
    const ranked = (await rerankItems(reranker, 'how do we refund', items, { topK: 3 })).items;
    expect(ranked.map((chosen) => chosen.path)).toEqual(['b.ts', 'a.ts', 'c.ts']);
    expect(server.requests.length - before).toBe(3);
    await rerankItems(reranker, 'how do we refund', items, { topK: 3 });
    expect(server.requests.length - before).toBe(3);
  });

  it('API rerankers speak the Cohere and Voyage wire formats', async () => {
    for (const [format, baseUrl] of [
      ['cohere', server.baseUrl],
      ['voyage', `${server.baseUrl}/voyage`],
    ] as const) {
      const ranked = (await rerankItems(apiReranker({ format, baseUrl, model: 'rerank-test' }), 'refund charge', items, { topK: 2 })).items;
      expect(ranked.map((chosen) => chosen.path)).toEqual(['b.ts', 'c.ts']);
    }
  });

  it('API rerankers retry a busy server through the shared HTTP client, and say when they give up', async () => {
    const reranker = apiReranker({ format: 'cohere', baseUrl: server.baseUrl, model: 'rerank-test', retryBaseMs: 1 });
    server.faults.push('rate-limit');
    expect((await rerankItems(reranker, 'refund charge', items, { topK: 2 })).items.map((chosen) => chosen.path)).toEqual(['b.ts', 'c.ts']);
    server.faults.push('server-error', 'server-error');
    await expect(rerankItems(reranker, 'refund charge', items, { topK: 2 })).rejects.toMatchObject({
      code: 'LLM_FAILED',
      message: expect.stringMatching(/failed after 2 attempts: answered HTTP 500: boom/),
    });
  });

  it('MMR drops near-duplicates in favour of other content', async () => {
    const embed = async (texts: string[]) => texts.map((text) => Float32Array.from(text.includes('refund') ? [1, 0] : [0, 1]));
    const candidates = [
      { ...(items[1] as ContextItem), score: 0.9 },
      { ...(items[2] as ContextItem), score: 0.85 },
      { ...(items[0] as ContextItem), score: 0.3 },
    ];
    const ranked = (await rerankItems(mmrReranker(embed, 0.5), 'q', candidates, { topK: 2 })).items;
    expect(ranked.map((chosen) => chosen.path)).toEqual(['b.ts', 'a.ts']);
  });
});

describe('cross-encoder reranker (tiny ONNX model built by the test)', () => {
  it('reads query and snippet together and ranks the related snippet first', async () => {
    const { writeTinyModelFolder } = await import('../embed/local/test-support/tiny-model-folder.js');
    const { crossEncoderReranker } = await import('./rerank/cross-encoder.js');
    const folder = join(workspace, 'tiny-cross-encoder');
    await writeTinyModelFolder(folder, { refunds: ['refund', 'charge', 'money', 'back'], cats: ['cat', 'sofa', 'sleeps'], files: ['json', 'parse', 'file'] }, 8, 'cross-encoder');
    const reranker = await crossEncoderReranker({ model: folder, dtype: 'fp32', batchSize: 2 });
    const candidates = [item('cats.ts', 1, 1, 0.9, 'cat sleeps sofa'), item('json.ts', 1, 1, 0.8, 'parse json file'), item('refund.ts', 1, 1, 0.1, 'refund charge money')];
    const ranked = (await rerankItems(reranker, 'give the money back', candidates, { topK: 3 })).items;
    expect(ranked.map((chosen) => chosen.path)).toEqual(['refund.ts', expect.any(String), expect.any(String)]);
    expect((ranked[0] as ContextItem).score).toBeGreaterThan((ranked[1] as ContextItem).score);
    await expect(crossEncoderReranker({ model: join(workspace, 'missing-model') })).rejects.toMatchObject({ code: 'EMBEDDER_UNAVAILABLE' });
  });
});
