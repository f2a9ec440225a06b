import { describe, expect, it } from 'vitest';
import { buildFilter } from './build-filter.js';

describe('buildFilter paths', () => {
  const root = '/home/dev/project';

  it('keeps globs, widens a folder to everything under it, and marks excludes', () => {
    expect(buildFilter({ paths: ['src/**/*.ts', 'lib', '!**/*.test.ts'], root })?.pathGlobs).toEqual(['src/**/*.ts', 'lib', 'lib/**', '!**/*.test.ts']);
  });

  it('makes an absolute path inside the root relative (as a shell completes it)', () => {
    expect(buildFilter({ paths: [`${root}/src/store`, `!${root}/src/store/*.test.ts`], root })?.pathGlobs).toEqual(['src/store', 'src/store/**', '!src/store/*.test.ts']);
    expect(buildFilter({ paths: [root], root })?.pathGlobs).toEqual(['**']);
  });

  it('refuses a path outside the root, absolute or climbing with .., without naming the root', () => {
    for (const path of ['/etc', '/srv/other/src', '../../etc/**', 'src/../../secret', '!../x']) {
      let error: unknown;
      try {
        buildFilter({ paths: [path], root });
      } catch (caught) {
        error = caught;
      }
      expect(error, path).toMatchObject({ code: 'PATH_OUTSIDE_ROOT' });
      expect(JSON.stringify({ message: (error as Error).message, hint: (error as { hint?: string }).hint })).not.toContain(root);
    }
  });

  it('refuses an empty path', () => {
    expect(() => buildFilter({ paths: ['!'], root })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
