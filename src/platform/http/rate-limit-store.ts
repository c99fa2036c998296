import type { MikroORM } from '@mikro-orm/core';
import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';

// One statement per hit on both engines (SQLite 3.35+ and PostgreSQL share upsert and RETURNING): a new window
// starts the count again at 1, the current one adds to it.
const INCREMENT = `
  insert into rate_limit_counter (key, hits, resets_at) values (?, 1, ?)
  on conflict (key) do update set
    hits = case when rate_limit_counter.resets_at = excluded.resets_at then rate_limit_counter.hits + 1 else 1 end,
    resets_at = excluded.resets_at
  returning hits, resets_at`;
const DECREMENT = 'update rate_limit_counter set hits = hits - 1 where key = ? and resets_at = ? and hits > 0';
const GET = 'select hits, resets_at from rate_limit_counter where key = ? and resets_at = ?';
const RESET = 'delete from rate_limit_counter where key = ?';
const SWEEP = 'delete from rate_limit_counter where resets_at < ?';

interface CounterRow {
  hits: number | string;
  resets_at: number | string;
}

/**
 * An express-rate-limit store in the gateway's database, so a client's limit holds across every instance
 * (express-rate-limit's own store counts per process). Windows are fixed and aligned to the epoch.
 */
export class DatabaseRateLimitStore implements Store {
  /** Counters live in the shared table: express-rate-limit must not assume they are per process. */
  readonly localKeys = false;
  private windowMs = 60_000;
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly orm: MikroORM,
    readonly prefix: string,
    private readonly now: () => number = Date.now,
  ) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
    this.sweeper = setInterval(() => void this.sweep(), Math.max(this.windowMs, 60_000));
    this.sweeper.unref();
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const row = await this.execute<CounterRow | undefined>(GET, [this.prefix + key, this.windowEnd()], 'get');
    return row ? info(row) : undefined;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    return info(await this.execute<CounterRow>(INCREMENT, [this.prefix + key, this.windowEnd()], 'get'));
  }

  async decrement(key: string): Promise<void> {
    await this.execute(DECREMENT, [this.prefix + key, this.windowEnd()], 'run');
  }

  async resetKey(key: string): Promise<void> {
    await this.execute(RESET, [this.prefix + key], 'run');
  }

  shutdown(): void {
    clearInterval(this.sweeper);
  }

  /** Removes the counters of keys not seen for a window, so one-off addresses do not pile up. */
  async sweep(): Promise<void> {
    await this.execute(SWEEP, [this.now() - this.windowMs], 'run').catch(() => undefined);
  }

  private windowEnd(): number {
    return (Math.floor(this.now() / this.windowMs) + 1) * this.windowMs;
  }

  private execute<T>(sql: string, params: unknown[], method: 'get' | 'run'): Promise<T> {
    return this.orm.em.getConnection().execute(sql, params, method) as Promise<T>;
  }
}

function info(row: CounterRow): ClientRateLimitInfo {
  return { totalHits: Number(row.hits), resetTime: new Date(Number(row.resets_at)) };
}
