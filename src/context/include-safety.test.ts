import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markers, writeHostileTree, type HostileTree } from '../sources/test-support/hostile-tree.js';
import { createLoci, type Loci } from '../engine/create-loci.js';
import { buildContext } from './build-context.js';

// The library door: buildContext's `include` and `@path`, /all and the small-project path,
// against a folder built as an attacker would (test/support/hostile-tree.ts).
let tree: HostileTree;
let loci: Loci;

beforeAll(async () => {
  tree = await writeHostileTree(await mkdtemp(join(tmpdir(), 'loci-include-safety-')));
  loci = createLoci({ root: tree.repo, embedder: 'none', config: { indexing: { worker: false } } });
  await loci.index();
});

afterAll(async () => {
  await loci.close();
  await rm(tree.workspace, { recursive: true, force: true });
});

async function refusal(include: string, via: 'include' | 'mention' = 'include') {
  const attempt = via === 'include' ? buildContext(loci, 'read it', { include: [include], maxTokens: 4000 }) : buildContext(loci, `read @${include}`, { maxTokens: 4000 });
  const error = await attempt.then(
    (built) => {
      throw new Error(`${include} was served: ${built.prompt.slice(0, 200)}`);
    },
    (caught: unknown) => caught as { code: string; message: string },
  );
  expect(error.message).not.toContain(tree.workspace); // never an absolute path
  return error;
}

describe('includes through the library', () => {
  it('refuses a symlink to a file outside the root, by include and by @path', async () => {
    expect(await refusal('shadow-link.txt')).toMatchObject({ code: 'PATH_OUTSIDE_ROOT', message: expect.stringMatching(/outside the project folder/) });
    expect((await refusal('shadow-link.txt', 'mention')).code).toBe('PATH_OUTSIDE_ROOT');
    expect((await refusal('linked-dir/shadow.txt')).code).toBe('PATH_OUTSIDE_ROOT');
    expect((await refusal(tree.outsideFile)).code).toBe('PATH_OUTSIDE_ROOT');
    expect((await refusal('../outside/shadow.txt')).code).toBe('PATH_OUTSIDE_ROOT');
  });

  it('refuses links to /proc/self/environ and /dev/zero', async () => {
    expect((await refusal('environ-link.txt')).code).toBe('PATH_OUTSIDE_ROOT');
    expect((await refusal('zero-link.txt')).code).toBe('PATH_OUTSIDE_ROOT');
  });

  it('refuses what the ignore, store and secret rules keep out, also through a link', async () => {
    for (const path of ['.env', 'keys/id_rsa', '.aws/credentials', '.npmrc', 'secrets.yaml', '.docker/config.json', 'certs/server.pem', 'dotenv-link.txt']) {
      expect((await refusal(path)).code, path).toBe('PATH_EXCLUDED');
    }
    for (const path of ['.git/config', 'gitdir/config', '.loci/index.db']) expect((await refusal(path)).code, path).toBe('PATH_EXCLUDED');
    // Content: a hard-coded AWS key in an ordinary file.
    expect(await refusal('config/settings.py')).toMatchObject({ code: 'PATH_EXCLUDED', message: expect.stringMatching(/AWS access key/) });
  });

  it('refuses an oversize file without reading it', async () => {
    expect(await refusal('big.txt')).toMatchObject({ code: 'FILE_TOO_LARGE', message: expect.stringMatching(/big\.txt.*over the 1000000-byte limit/) });
  });

  it('stops counting an include far over the prompt limit', async () => {
    // 0.9 MB: under the per-file cap, far over a prompt (written after indexing: the project stays small).
    await writeFile(join(tree.repo, 'medium.txt'), `${'word '.repeat(19)}\n`.repeat(9_000));
    try {
      expect(await refusal('medium.txt')).toMatchObject({ code: 'CONTEXT_TOO_LARGE', message: expect.stringMatching(/take more than \d+ tokens/) });
    } finally {
      await rm(join(tree.repo, 'medium.txt'));
    }
  });

  it('refuses a FIFO at once instead of blocking', async () => {
    expect((await refusal('pipe.txt')).code).toBe('NOT_A_REGULAR_FILE');
  }, 10_000);

  it('keeps serving ordinary files and public halves', async () => {
    const built = await buildContext(loci, 'how do refunds work', { include: ['src/refund.ts', 'keys/id_rsa.pub', '.env.example'], maxTokens: 4000, smallProject: false });
    expect(
      built.items
        .filter((item) => item.pinned)
        .map((item) => item.path)
        .sort(),
    ).toEqual(['.env.example', 'keys/id_rsa.pub', 'src/refund.ts']);
  });

  it('sends no secret in a small project context or /all', async () => {
    for (const question of ['anything about this project', '/all everything']) {
      const built = await buildContext(loci, question, { maxTokens: 100_000 });
      expect(built.mode).not.toBe('retrieved');
      for (const [name, marker] of Object.entries(markers)) {
        if (name === 'envExample') expect(built.prompt).toContain(marker);
        else expect(built.prompt, name).not.toContain(marker);
      }
    }
  });
});
