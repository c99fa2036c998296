import type { MikroORM } from '@mikro-orm/core';
import type { Logger } from 'pino';
import type { AccessChannel, AccessRecorder, Role, Viewer } from '../../access';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { setNewest } from '../../platform/bounded-map';
import { newTimeOrderedId } from '../../platform/db/ids';
import { LIMITS } from '../../platform/validation/rules';

const MINUTE = 60_000;

const COLUMNS = ['id', 'tender_id', 'at', 'app_id', 'role', 'party_id', 'surface', 'operation', 'count'];
// One statement per batch on both engines: a key written earlier in the minute adds its reads to that row's count.
const upsert = (rows: number) => `
  insert into access_log_entry (${COLUMNS.join(', ')})
  values ${Array.from({ length: rows }, () => `(${COLUMNS.map(() => '?').join(', ')})`).join(', ')}
  on conflict (id) do update set count = access_log_entry.count + excluded.count`;

/** A row to be written: the reads of one tender by one client on one operation within one minute. */
interface PendingRow {
  key: string;
  /** The row's id: the same for every batch of this key, so a later batch adds to the count written before. */
  id: string;
  tenderId: string;
  at: Date;
  appId: string;
  role: Role;
  partyId: string;
  surface: string;
  operation: string;
  count: number;
}

/**
 * The access log's writer: `record` adds a read to an in-memory buffer (repeated reads within a minute add to one
 * row's count), and the buffer is written in one statement per batch every ACCESS_LOG_FLUSH_MS or at
 * LIMITS.accessLogBatch rows, whichever comes first, and on `stop` (the graceful shutdown). A read never waits on the
 * database. A failed write keeps its rows and is tried again; the buffer holds at most LIMITS.accessLogBuffered
 * rows, and reads beyond that during an outage are logged as lost, never dropped silently.
 */
export class AccessLogBuffer implements AccessRecorder {
  private pending = new Map<string, PendingRow>();
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();
  private lost = 0;
  /** The rows written in the current minute, by key: later reads of the minute add to them. */
  private written = new Map<string, string>();
  private minute = 0;

  constructor(
    private readonly orm: MikroORM,
    private readonly flushMs: number,
    private readonly logger: Logger,
  ) {}

  record(tenderId: string, viewer: Viewer, channel: AccessChannel): void {
    const now = Date.now();
    const minute = Math.floor(now / MINUTE);
    if (minute !== this.minute) {
      this.minute = minute;
      this.written.clear();
    }
    const key = `${tenderId}|${viewer.appId}|${channel.surface}|${channel.operation}|${minute}`;
    const row = this.pending.get(key);
    if (row) {
      row.count++;
      return;
    }
    if (this.pending.size >= LIMITS.accessLogBuffered) {
      this.lost++;
      return;
    }
    this.pending.set(key, {
      key,
      // Time-ordered: a batch's new rows append to the key's index, half the cost of a row on a large log.
      id: this.written.get(key) ?? newTimeOrderedId(),
      tenderId,
      at: new Date(now),
      appId: viewer.appId,
      role: viewer.role,
      partyId: viewer.insurerId ?? viewer.brokerCompanyId ?? '',
      surface: channel.surface,
      operation: channel.operation,
      count: 1,
    });
    if (this.pending.size >= LIMITS.accessLogBatch) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.flushMs);
  }

  /** Writes what is buffered; resolves when it is written (or, failing, kept for the next try). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.writing.then(() => this.writeBuffered());
    return this.writing;
  }

  /** The graceful shutdown: every read recorded so far is written. */
  async stop(): Promise<void> {
    await this.flush();
  }

  private async writeBuffered(): Promise<void> {
    if (this.pending.size === 0) return;
    const rows = [...this.pending.values()];
    this.pending = new Map();
    // The rows' ids are known before the write: a read of the same key recorded while it is in flight adds to the same
    // row (the upsert sums), rather than starting a second one for the minute.
    for (const row of rows)
      if (Math.floor(row.at.getTime() / MINUTE) === this.minute) setNewest(this.written, row.key, row.id, LIMITS.accessLogBuffered);
    const platform = this.orm.em.getPlatform();
    for (let from = 0; from < rows.length; from += LIMITS.accessLogBatch) {
      // Between batches the requests waiting for the loop (and, on SQLite, the connection) go first.
      if (from > 0) await nextTurn();
      const batch = rows.slice(from, from + LIMITS.accessLogBatch);
      const params = batch.flatMap((row) => [
        row.id,
        row.tenderId,
        platform.processDateProperty(row.at),
        row.appId,
        row.role,
        row.partyId,
        row.surface,
        row.operation,
        row.count,
      ]);
      try {
        // One statement: the batch is written whole or not at all, so a retry never counts a read twice.
        await this.orm.em.getConnection().execute(upsert(batch.length), params, 'run');
      } catch (error) {
        this.keep(batch);
        this.logger.error({ err: error, rows: batch.length }, 'access log write failed; kept for the next try');
        this.timer ??= setTimeout(() => void this.flush(), this.flushMs);
      }
    }
    if (this.lost > 0) {
      this.logger.error({ reads: this.lost }, 'access log buffer full while the database refused writes: reads not recorded');
      this.lost = 0;
    }
  }

  /** Puts a failed batch back, merged with what was recorded meanwhile, within the buffer's bound. */
  private keep(rows: PendingRow[]): void {
    for (const row of rows) {
      const newer = this.pending.get(row.key);
      if (newer) {
        newer.count += row.count;
        newer.at = row.at;
      } else if (this.pending.size < LIMITS.accessLogBuffered) this.pending.set(row.key, row);
      else this.lost += row.count;
    }
  }
}
