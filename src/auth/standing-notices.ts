import type { EntityManager } from '@mikro-orm/core';
import pg from 'pg';
import type { Logger } from 'pino';
import { databaseEngine } from '../platform/db/orm-options';

/** The PostgreSQL channel of token standing changes. */
const CHANNEL = 'token_standing';
/** The first wait before the LISTEN connection is opened again; doubled per failure up to RECONNECT_MAX_MS. */
const RECONNECT_MS = 250;
const RECONNECT_MAX_MS = 5_000;

/** A change other instances must hear of: a revoked token, or a client's standing as committed. */
export type StandingNotice = { jti: string; exp: number } | { client: string; disabled: boolean; gen: number };

/**
 * Tells the other instances (PostgreSQL NOTIFY; delivered when the surrounding transaction commits, not before).
 * On SQLite there is no channel: they find the change by their periodic reconcile.
 */
export async function announce(em: EntityManager, notice: StandingNotice): Promise<void> {
  if (databaseEngine(em.config.get('clientUrl') ?? '') !== 'postgresql') return;
  await em.getConnection().execute('select pg_notify(?, ?)', [CHANNEL, JSON.stringify(notice)]);
}

const isNotice = (value: unknown): value is StandingNotice => {
  const notice = value as Partial<Record<string, unknown>> | null;
  if (typeof notice !== 'object' || notice === null) return false;
  if (typeof notice.jti === 'string') return typeof notice.exp === 'number';
  return typeof notice.client === 'string' && typeof notice.disabled === 'boolean' && Number.isSafeInteger(notice.gen);
};

/**
 * One connection of its own, outside the pool, that LISTENs for standing changes; when it drops it is opened again
 * (backing off), and `connected` runs on every (re)connection so the caller reads what it may have missed.
 */
export class StandingListener {
  private client?: pg.Client;
  private stopped = false;
  private retryMs = RECONNECT_MS;
  private retry?: NodeJS.Timeout;

  constructor(
    private readonly databaseUrl: string,
    private readonly logger: Logger,
    private readonly on: { notice: (notice: StandingNotice) => void; connected: () => void },
  ) {}

  /** Resolves once listening; a first failure is retried in the background like a later drop. */
  async start(): Promise<void> {
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    this.client = client;
    let lost = false;
    const reconnect = (error?: unknown) => {
      if (lost || this.stopped) return;
      lost = true;
      this.logger.warn({ err: error }, 'token standing: the LISTEN connection dropped; reconnecting (the reconcile bounds what is missed)');
      client.end().catch(() => undefined);
      this.retry = setTimeout(() => void this.connect(), this.retryMs).unref();
      this.retryMs = Math.min(this.retryMs * 2, RECONNECT_MAX_MS);
    };
    client.on('error', reconnect);
    client.on('end', () => reconnect());
    client.on('notification', (message) => {
      let notice: unknown;
      try {
        notice = JSON.parse(message.payload ?? '');
      } catch {
        return;
      }
      if (isNotice(notice)) this.on.notice(notice);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      reconnect(error);
      return;
    }
    if (this.stopped) return void (await client.end().catch(() => undefined));
    this.retryMs = RECONNECT_MS;
    this.on.connected();
  }
}
