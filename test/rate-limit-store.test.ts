import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import type { Options } from 'express-rate-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/platform/config';
import { openDatabase } from '../src/database';
import { RateLimitCounter } from '../src/platform/http/rate-limit-counter.entity';
import { DatabaseRateLimitStore } from '../src/platform/http/rate-limit-store';
import { databaseUrlFor, dropDatabaseFor } from './helpers/database';
import { TEST_JWT_SECRET } from './helpers/gateway';

let dataDir: string;
let orm: MikroORM;
const WINDOW_MS = 60_000;
// A fixed instant in the middle of a window, and the instants of the next windows.
const NOW = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS + 30_000;

function store(prefix: string, now: () => number): DatabaseRateLimitStore {
  const created = new DatabaseRateLimitStore(orm, prefix, now);
  created.init({ windowMs: WINDOW_MS } as Options);
  return created;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tender-exchange-rate-'));
  orm = await openDatabase(loadConfig({ DATA_DIR: dataDir, DATABASE_URL: await databaseUrlFor(dataDir), JWT_SECRET: TEST_JWT_SECRET }));
});

afterAll(async () => {
  await orm?.close();
  await dropDatabaseFor(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
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
