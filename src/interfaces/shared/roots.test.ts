import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../config/load.js';
import { Roots } from './roots.js';

describe('served roots', () => {
  it('serves a folder named twice once, and two folders of one name under two names', async () => {
    const workspace = await mkdtemp(join(tmpdir(), 'loci-roots-'));
    const roots = new Roots([join(workspace, 'a', 'proj'), `${join(workspace, 'a', 'proj')}/`, join(workspace, 'b', 'proj')], () => resolveConfig([]), {});
    try {
      expect(roots.list().map((root) => root.name)).toEqual(['proj', 'proj-2']);
      expect(roots.get('proj-2').path).toBe(join(workspace, 'b', 'proj'));
    } finally {
      await roots.close();
      await rm(workspace, { recursive: true, force: true });
    }
  });
});
