import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLoci } from '../engine/create-loci.js';
import { inWindow, temporalReferences } from './temporal.js';

const now = Date.UTC(2023, 9, 20, 12); // 20 Oct 2023, noon
const day = 86_400_000;

describe('time expressions in queries', () => {
  it('resolves dates, months, years and relative times against now', () => {
    const refs = (query: string) => temporalReferences(query, now).map((reference) => [reference.text, reference.window]);
    expect(refs('what happened on 8 May, 2023?')).toEqual([['8 May, 2023', { since: Date.UTC(2023, 4, 8), until: Date.UTC(2023, 4, 9) }]]);
    expect(refs('setback in October 2023')).toEqual([['October 2023', { since: Date.UTC(2023, 9, 1), until: Date.UTC(2023, 10, 1) }]]);
    expect(refs('camping in June')).toEqual([['in June', { monthOfYear: 5 }]]);
    expect(refs('the beach in 2022')).toEqual([['in 2022', { since: Date.UTC(2022, 0, 1), until: Date.UTC(2023, 0, 1) }]]);
    expect(refs('what did we decide yesterday')).toEqual([['yesterday', { since: Date.UTC(2023, 9, 19), until: Date.UTC(2023, 9, 20) }]]);
    expect(refs('notes from last week')).toEqual([['last week', { since: now - 14 * day, until: now + day }]]);
    expect(refs('three days ago')).toEqual([['three days ago', { since: now - 4 * day, until: now - 2 * day }]]);
  });

  it('leaves words that only look like times alone', () => {
    expect(temporalReferences('May I rename the config?', now)).toEqual([]);
    expect(temporalReferences('march through the list in order', now)).toEqual([]);
    expect(temporalReferences('port 2023 is busy', now)).toEqual([]);
  });

  it('tests a time against a window', () => {
    expect(inWindow(Date.UTC(2021, 5, 3), { monthOfYear: 5 })).toBe(true);
    expect(inWindow(Date.UTC(2021, 6, 3), { monthOfYear: 5 })).toBe(false);
    expect(inWindow(5, { since: 5, until: 6 })).toBe(true);
    expect(inWindow(6, { since: 5, until: 6 })).toBe(false);
  });
});

describe('temporal signal in recall', () => {
  it('prefers records from the time a query names, and says so in the signals', async () => {
    const workspace = await mkdtemp(join(tmpdir(), 'loci-temporal-'));
    const loci = createLoci({ root: workspace });
    try {
      const memory = await loci.memory();
      await memory.addMany(
        [
          { namespace: 'team', id: 'old', kind: 'note', text: 'We decided to ship the release on Friday.', time: Date.UTC(2023, 5, 2) },
          { namespace: 'team', id: 'new', kind: 'note', text: 'We decided to delay the release a week.', time: Date.UTC(2023, 9, 12) },
        ],
        { dedupe: false },
      );
      const june = await memory.recall('what did we decide about the release in June?', { namespaces: ['team'], now, topK: 2 });
      expect(june.map((hit) => hit.record.id)).toEqual(['old', 'new']);
      expect(june[0]?.signals.temporal).toBe(1);
      const lastWeek = await memory.recall('what did we decide about the release last week?', { namespaces: ['team'], now, topK: 2 });
      expect(lastWeek[0]?.record.id).toBe('new');
      expect(lastWeek[1]?.signals.temporal).toBeUndefined();
    } finally {
      await loci.close();
      await rm(workspace, { recursive: true, force: true });
    }
  });
});
