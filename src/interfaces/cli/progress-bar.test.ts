import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProgressBar } from './progress-bar.js';

const sink = (isTTY: boolean) => {
  const lines: string[] = [];
  return { stream: { isTTY, columns: 100, write: (text: string) => lines.push(text) > 0 } as unknown as NodeJS.WritableStream & { isTTY: boolean }, lines };
};

afterEach(() => {
  vi.useRealTimers();
});

describe('progress', () => {
  it('prints a plain line every 15 s of a long run when not on a TTY, and nothing for a short one', () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const { stream, lines } = sink(false);
    const bar = createProgressBar(stream, 'indexing');
    for (let done = 1; done <= 100; done++) {
      bar.update(done, 400, `file${done}.ts`);
      vi.advanceTimersByTime(100); // 10 s for 100 files
    }
    expect(lines).toEqual([]);
    for (let done = 101; done <= 400; done++) {
      bar.update(done, 400, `file${done}.ts`);
      vi.advanceTimersByTime(100);
    }
    expect(lines).toHaveLength(2); // at 15 s and 30 s
    expect(lines[0]).toMatch(/^indexing: 15\d\/400 \(38%\), 15s so far ETA 2\ds\n$/);
  });

  it('shows no ETA for the first seconds on a TTY, then one from the pace so far', () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const { stream, lines } = sink(true);
    const bar = createProgressBar(stream, 'indexing');
    bar.update(1, 1000, 'a.ts');
    vi.advanceTimersByTime(1_000);
    bar.update(2, 1000, 'b.ts'); // a slow start: 1 s a file would say ETA 17 min
    expect(lines.join('')).not.toContain('ETA');
    vi.advanceTimersByTime(2_000);
    bar.update(500, 1000, 'c.ts');
    expect(lines.at(-1)).toContain('ETA 3s');
    bar.onIndexEvent({ type: 'save-started' });
    expect(lines.at(-1)).toContain('1000/1000 100% saving the index files');
  });

  it('says so when an index from an older loci is upgraded before the run, on a pipe too', () => {
    const { stream, lines } = sink(false);
    createProgressBar(stream, 'indexing').onIndexEvent({ type: 'store-upgrade', store: '/repo/.loci/index.db', from: 4, to: 5 });
    expect(lines).toEqual(["Upgrading /repo/.loci/index.db from loci's schema version 4 to 5, once, for this version of loci…\n"]);
  });
});
