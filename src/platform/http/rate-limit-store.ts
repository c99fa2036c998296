import type { MikroORM } from '@mikro-orm/core';
import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import { setNewest } from '../bounded-map';

// Adds `hits` to each key's counter in one statement on both engines (SQLite 3.35+ and PostgreSQL share upsert and
// RETURNING): a new window starts the count again, the current one adds to it.
const addHits = (rows: number) => `
  insert into rate_limit_counter (key, hits, resets_at) values ${Array.from({ length: rows }, () => '(?, ?, ?)').join(', ')}
  on conflict (key) do update set
    hits = case when rate_limit_counter.resets_at = excluded.resets_at then rate_limit_counter.hits + excluded.hits else excluded.hits end,
    resets_at = excluded.resets_at
  returning key, hits, resets_at`;
const ADD_ONE_KEY = addHits(1);
const DECREMENT = 'update rate_limit_counter set hits = hits - 1 where key = ? and resets_at = ? and hits > 0';
const GET = 'select hits, resets_at from rate_limit_counter where key = ? and resets_at = ?';
const RESET = 'delete from rate_limit_counter where key = ?';
const SWEEP = 'delete from rate_limit_counter where resets_at < ?';

/**
 * Keys an instance keeps tallies of. Beyond it the tally synchronised longest ago is forgotten, with at most one
 * interval's hits: a flood of new addresses costs memory up to here and no more.
 */
const TALLIES_KEPT = 10_000;
/** Keys sent in one statement (three values each). */
const KEYS_PER_STATEMENT = 500;

interface CounterRow {
  key?: string;
  hits: number | string;
  resets_at: number | string;
}

/** What this instance knows of one key's counter in the current window. */
interface Tally {
  windowEnd: number;
  /** The counter in the database when it last answered, every instance's hits until then. */
  known: number;
  /** When that was. */
  knownAt: number;
  /** Hits sent and not yet answered. */
  sending: number;
  /** Hits counted here and not yet sent. */
  unsent: number;
}

/**
 * An express-rate-limit store in the gateway's database, so a client's limit holds across every instance
 * (express-rate-limit's own store counts per process). Windows are fixed and aligned to the epoch.
 *
 * With `syncMs` > 0, a hit of a key whose counter the database told this instance at most `syncMs` ago is counted
 * here and sent with the other keys' hits at most `syncMs` later, in one statement: a busy client costs a write per
 * `syncMs`, not per request (docs/benchmark.md). Each decision counts every hit of this instance and every hit the
 * database knew `syncMs` earlier at the latest; what other instances counted since is the slack. With 0, every hit
 * is a statement and the count is exact across instances.
 */
export class DatabaseRateLimitStore implements Store {
  /** Counters live in the shared table: express-rate-limit must not assume they are per process. */
  readonly localKeys = false;
  private windowMs = 60_000;
  private sweeper?: NodeJS.Timeout;
  private readonly tallies = new Map<string, Tally>();
  private flushTimer?: NodeJS.Timeout;
  private readonly syncMs: number;
  private readonly now: () => number;

  constructor(
    private readonly orm: MikroORM,
    readonly prefix: string,
    options: { syncMs?: number; now?: () => number } = {},
  ) {
    this.syncMs = options.syncMs ?? 0;
    this.now = options.now ?? Date.now;
  }

  init(options: Options): void {
    this.windowMs = options.windowMs;
    this.sweeper = setInterval(() => void this.sweep(), Math.max(this.windowMs, 60_000));
    this.sweeper.unref();
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const windowEnd = this.windowEnd();
    const tally = this.current(key, windowEnd);
    if (tally && this.fresh(tally)) return this.info(tally);
    const row = await this.execute<CounterRow | undefined>(GET, [this.prefix + key, windowEnd], 'get');
    const local = tally ? tally.sending + tally.unsent : 0;
    return row ? info(row, local) : local > 0 ? { totalHits: local, resetTime: new Date(windowEnd) } : undefined;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    const windowEnd = this.windowEnd();
    const tally = this.current(key, windowEnd);
    if (tally && this.fresh(tally)) {
      tally.unsent++;
      this.flushSoon();
      return this.info(tally);
    }
    // Nothing known of this key, or known too long ago: ask the database, sending this hit with the others unsent.
    const kept = tally ?? { windowEnd, known: 0, knownAt: 0, sending: 0, unsent: 0 };
    if (this.syncMs > 0) setNewest(this.tallies, key, kept, TALLIES_KEPT);
    const hits = kept.unsent + 1;
    kept.unsent = 0;
    await this.send([[key, kept, hits]]);
    return this.info(kept);
  }

  async decrement(key: string): Promise<void> {
    const windowEnd = this.windowEnd();
    const tally = this.current(key, windowEnd);
    if (tally && tally.unsent > 0) tally.unsent--;
    else await this.execute(DECREMENT, [this.prefix + key, windowEnd], 'run');
  }

  async resetKey(key: string): Promise<void> {
    this.tallies.delete(key);
    await this.execute(RESET, [this.prefix + key], 'run');
  }

  /** Sends what is unsent (best effort): hits of the last moments before a stop still count at the other instances. */
  shutdown(): void {
    clearInterval(this.sweeper);
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    void this.flush().catch(() => undefined);
  }

  /** Removes the counters of keys not seen for a window, so one-off addresses do not pile up. */
  async sweep(): Promise<void> {
    await this.execute(SWEEP, [this.now() - this.windowMs], 'run').catch(() => undefined);
  }

  /** Sends every key's unsent hits of the current window; tallies of past windows are dropped, their counts are over. */
  async flush(): Promise<void> {
    const windowEnd = this.windowEnd();
    const due: [string, Tally][] = [];
    for (const [key, tally] of this.tallies) {
      if (tally.windowEnd !== windowEnd) {
        if (tally.sending === 0) this.tallies.delete(key);
      } else if (tally.unsent !== 0) due.push([key, tally]);
    }
    for (let from = 0; from < due.length; from += KEYS_PER_STATEMENT) {
      // Taken when sent: a failed statement hands its hits back, and later batches still have theirs.
      const batch = due.slice(from, from + KEYS_PER_STATEMENT).map(([key, tally]): [string, Tally, number] => [key, tally, tally.unsent]);
      for (const [, tally] of batch) tally.unsent = 0;
      await this.send(batch);
    }
  }

  private flushSoon(): void {
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      // A failed statement gave its hits back to the tallies: the next hit schedules them again.
      void this.flush().catch(() => undefined);
    }, this.syncMs);
  }

  /** Adds each entry's hits to its key's counter and learns the counters; on failure the hits stay unsent. */
  private async send(entries: [string, Tally, number][]): Promise<void> {
    const windowEnd = entries[0][1].windowEnd;
    for (const [, tally, hits] of entries) tally.sending += hits;
    const params = entries.flatMap(([key, , hits]) => [this.prefix + key, hits, windowEnd]);
    let rows: CounterRow[];
    try {
      rows = await this.execute<CounterRow[]>(entries.length === 1 ? ADD_ONE_KEY : addHits(entries.length), params, 'all');
    } catch (error) {
      for (const [, tally, hits] of entries) {
        tally.sending -= hits;
        tally.unsent += hits;
      }
      throw error;
    }
    const answered = new Map(rows.map((row) => [row.key, Number(row.hits)]));
    const at = this.now();
    for (const [key, tally, hits] of entries) {
      tally.sending -= hits;
      // Answers may overtake one another; within a window a counter only grows by what instances send.
      tally.known = Math.max(tally.known, answered.get(this.prefix + key) ?? 0);
      tally.knownAt = at;
    }
  }

  private current(key: string, windowEnd: number): Tally | undefined {
    const tally = this.tallies.get(key);
    return tally?.windowEnd === windowEnd ? tally : undefined;
  }

  private fresh(tally: Tally): boolean {
    return this.syncMs > 0 && this.now() - tally.knownAt <= this.syncMs;
  }

  private info(tally: Tally): ClientRateLimitInfo {
    return { totalHits: tally.known + tally.sending + tally.unsent, resetTime: new Date(tally.windowEnd) };
  }

  private windowEnd(): number {
    return (Math.floor(this.now() / this.windowMs) + 1) * this.windowMs;
  }

  private execute<T>(sql: string, params: unknown[], method: 'all' | 'get' | 'run'): Promise<T> {
    return this.orm.em.getConnection().execute(sql, params, method) as Promise<T>;
  }
}

function info(row: CounterRow, local = 0): ClientRateLimitInfo {
  return { totalHits: Number(row.hits) + local, resetTime: new Date(Number(row.resets_at)) };
}
