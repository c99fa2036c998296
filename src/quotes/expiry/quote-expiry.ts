import type { EntityManager, MikroORM } from '@mikro-orm/core';
import type { PeriodicTask } from '../../platform/tasks/periodic-task';
import { dateOfColumn } from '../../platform/db/column-values';
import type { TenderStatus } from '../../tenders';
import type { QuoteEventListener } from '../quote-events';
import { QUOTABLE, QuoteRequestStatus } from '../quote-request-status';

/** Tenders on whose quotes cover may still be ordered: only there does a quote's validity matter. */
const ORDERABLE = QUOTABLE.map((s) => `'${s}'`).join(', ');
const RETURNING = `returning id, insurer_id, valid_until,
    (select t.status from tender t where t.id = quote_request.tender_id) as tender_status,
    (select t.broker_company_id from tender t where t.id = quote_request.tender_id) as broker_company_id, tender_id`;

/**
 * QUOTED → EXPIRED once `valid_until` has passed (valid through that millisecond), in one statement on the
 * (status, valid_until) index. Several instances may run it at once: each row changes once (PostgreSQL re-checks
 * the condition on a row another instance changed meanwhile; SQLite has one writer), and so is reported once.
 */
const EXPIRE = `update quote_request set status = '${QuoteRequestStatus.EXPIRED}', updated_at = ?
  where status = '${QuoteRequestStatus.QUOTED}' and valid_until < ? and tender_id in (select id from tender where status in (${ORDERABLE}))
  ${RETURNING}`;

/** The warning, once per quote (`expiry_warned_at`), as the validity's end comes within QUOTE_EXPIRY_WARNING. */
const WARN = `update quote_request set expiry_warned_at = ?
  where status = '${QuoteRequestStatus.QUOTED}' and valid_until < ? and expiry_warned_at is null and tender_id in (select id from tender where status in (${ORDERABLE}))
  ${RETURNING}`;

interface ExpiryRow {
  id: string;
  insurer_id: string;
  valid_until: unknown;
  tender_id: string;
  tender_status: TenderStatus;
  broker_company_id: string;
}

/**
 * Expires quotes on a schedule (QUOTE_EXPIRY_INTERVAL_MS, the periodic task `quoteExpiryTask`), on every instance: a
 * quote stays QUOTED at most one interval past its validity, across restarts (the database holds every validity).
 * Reads decide by `valid_until` at once, so the proposal and ordering cover never wait for the sweep.
 */
export class QuoteExpiry {
  constructor(
    private readonly orm: MikroORM,
    private readonly options: { warningMs: number; listeners: readonly QuoteEventListener[] },
  ) {}

  /** One round: warn of quotes whose validity ends soon, expire those whose validity has ended. */
  async sweep(now = new Date()): Promise<{ warned: number; expired: number }> {
    return this.orm.em.fork().transactional(async (tx) => {
      const warned = await this.run(tx, WARN, now, new Date(now.getTime() + this.options.warningMs), 'quoteExpiring');
      const expired = await this.run(tx, EXPIRE, now, now, 'quoteExpired');
      return { warned, expired };
    });
  }

  private async run(tx: EntityManager, sql: string, now: Date, before: Date, kind: 'quoteExpiring' | 'quoteExpired'): Promise<number> {
    const platform = tx.getPlatform();
    const rows = (await tx
      .getConnection()
      .execute(
        sql,
        [platform.processDateProperty(now), platform.processDateProperty(before)],
        'all',
        tx.getTransactionContext(),
      )) as ExpiryRow[];
    for (const row of rows) {
      const event = {
        kind,
        tender: { id: row.tender_id, status: row.tender_status, brokerCompanyId: row.broker_company_id },
        quoteRequestId: row.id,
        insurerId: row.insurer_id,
        validUntil: dateOfColumn(row.valid_until),
        at: now,
      };
      for (const listener of this.options.listeners) await listener(tx, event);
    }
    return rows.length;
  }
}

/** The sweep as a periodic task: at start (quotes that ended while no instance ran), then every interval. */
export function quoteExpiryTask(expiry: QuoteExpiry, everyMs: number): PeriodicTask {
  return { name: 'quote expiry sweep', everyMs, allInstances: true, atStart: true, run: (now) => expiry.sweep(now) };
}
