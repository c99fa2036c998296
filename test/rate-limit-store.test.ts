import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import type { Options } from 'express-rate-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/platform/config';
import { openDatabase } from '../src/database';
import { RateLimitCounter } from '../src/platform/http/rate-limit-counter.entity';
import { DatabaseRateLimitStore } from '../src/platform/http/rate-limit-store';
import { databaseUrlFor, removeDataDir } from './helpers/database';
import { TEST_JWT_SECRET } from './helpers/gateway';
import { awayFromWindowEdge } from './helpers/rate-limit-window';
import { waitFor } from './helpers/simulator';

let dataDir: string;
let orm: MikroORM;
const WINDOW_MS = 60_000;
// A fixed instant in the middle of a window, and the instants of the next windows.
const NOW = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS + 30_000;

function store(prefix: string, now: () => number, syncMs = 0): DatabaseRateLimitStore {
  const created = new DatabaseRateLimitStore(orm, prefix, { now, syncMs });
  created.init({ windowMs: WINDOW_MS } as Options);
  return created;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tender-exchange-rate-'));
  orm = await openDatabase(loadConfig({ DATA_DIR: dataDir, DATABASE_URL: await databaseUrlFor(dataDir), JWT_SECRET: TEST_JWT_SECRET }));
});

afterAll(async () => {
  await orm?.close();
  await removeDataDir(dataDir);
});

describe('the rate-limit store in the database', () => {
  it('counts hits per key within a window, with the window end as reset time', async () => {
    const limits = store('a:', () => NOW);
    expect((await limits.increment('client')).totalHits).toBe(1);
    const second = await limits.increment('client');
    expect(second.totalHits).toBe(2);
    expect(second.resetTime?.getTime()).toBe(NOW - 30_000 + WINDOW_MS);
    expect((await limits.increment('other')).totalHits).toBe(1);
    await limits.decrement('client');
    expect((await limits.get('client'))?.totalHits).toBe(1);
    limits.shutdown();
  });

  it('instances with the same prefix share counters; another prefix counts apart', async () => {
    const [first, second, other] = [store('b:', () => NOW), store('b:', () => NOW), store('c:', () => NOW)];
    await first.increment('client');
    expect((await second.increment('client')).totalHits).toBe(2);
    expect((await other.increment('client')).totalHits).toBe(1);
    for (const each of [first, second, other]) each.shutdown();
  });

  it('starts again at 1 in the next window, and sweeps counters of windows long gone', async () => {
    let now = NOW;
    const limits = store('d:', () => now);
    await limits.increment('client');
    await limits.increment('client');
    await limits.increment('idle');
    now += WINDOW_MS;
    expect((await limits.increment('client')).totalHits).toBe(1);
    expect(await limits.get('idle')).toBeUndefined();
    now += WINDOW_MS;
    await limits.sweep();
    const keys = (await orm.em.fork().find(RateLimitCounter, { key: { $like: 'd:%' } })).map((row) => row.key);
    expect(keys).toEqual(['d:client']);
    await limits.resetKey('client');
    expect(await limits.get('client')).toBeUndefined();
    limits.shutdown();
  });
});

describe('the rate-limit store with a sync interval (RATE_LIMIT_SYNC_MS)', () => {
  const SYNC_MS = 50;
  const counter = async (key: string) => (await orm.em.fork().findOne(RateLimitCounter, { key }))?.hits;

  it("counts a busy client's hits at once and sends them to the database together, within the interval", async () => {
    const limits = store('e:', () => NOW, SYNC_MS);
    const totals: number[] = [];
    for (let i = 0; i < 5; i++) totals.push((await limits.increment('client')).totalHits);
    expect(totals).toEqual([1, 2, 3, 4, 5]);
    // The first hit asked the database; the next four are tallied here until the next synchronisation.
    expect(await counter('e:client')).toBe(1);
    await limits.flush();
    expect(await counter('e:client')).toBe(5);
    expect((await limits.increment('client')).totalHits).toBe(6);
    limits.shutdown();
  });

  it('sends the tallied hits by itself once the interval has passed', async () => {
    const limits = new DatabaseRateLimitStore(orm, 'f:', { syncMs: SYNC_MS });
    limits.init({ windowMs: WINDOW_MS } as Options);
    await awayFromWindowEdge(WINDOW_MS);
    for (let i = 0; i < 3; i++) await limits.increment('client');
    await waitFor('the tallied hits in the database', async () => (await counter('f:client')) === 3, 2_000);
    limits.shutdown();
  });

  it("counts another instance's hits in a decision at most one interval after that instance sent them", async () => {
    let now = NOW;
    const [a, b] = [store('g:', () => now, SYNC_MS), store('g:', () => now, SYNC_MS)];
    expect((await a.increment('client')).totalHits).toBe(1);
    expect((await b.increment('client')).totalHits).toBe(2); // b asks the database, which knows a's hit
    expect((await b.increment('client')).totalHits).toBe(3);
    await b.flush();
    // a learnt the counter at its first hit, within the interval: b's hits are the slack.
    expect((await a.increment('client')).totalHits).toBe(2);
    now += SYNC_MS + 1;
    // Known too long ago: a asks the database again, sending its own tallied hit with this one.
    expect((await a.increment('client')).totalHits).toBe(5);
    expect(await counter('g:client')).toBe(5);
    for (const each of [a, b]) each.shutdown();
  });

  it('forgets the tallies of a window that has ended: the next window starts again at 1', async () => {
    let now = NOW;
    const limits = store('h:', () => now, SYNC_MS);
    for (let i = 0; i < 3; i++) await limits.increment('client');
    now += WINDOW_MS;
    expect((await limits.increment('client')).totalHits).toBe(1);
    await limits.flush();
    expect(await counter('h:client')).toBe(1);
    limits.shutdown();
  });
});
