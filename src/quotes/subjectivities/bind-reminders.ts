import type { MikroORM } from '@mikro-orm/core';
import { DateTime } from 'luxon';
import type { PeriodicTask } from '../../platform/tasks/periodic-task';
import { dateOfColumn } from '../../platform/db/column-values';
import { Tender, TenderStatus } from '../../tenders';
import type { QuoteEventListener } from '../quote-events';
import { SubjectivityStatus } from '../quote-request-status';

/** The calendar working days are counted in (Monday to Friday; public holidays are not counted out). */
const WORKING_DAYS_ZONE = 'Europe/Berlin';

/**
 * The moment `days` working days after `at`: the same time of day that many weekdays later in Europe/Berlin (an
 * order on Friday at 10:00 with two days is due on Tuesday at 10:00); from a weekend, counted from the Monday's start.
 * Public holidays count as working days: they differ between the German states (and other countries), and a reminder
 * a day early does no harm.
 */
export function afterWorkingDays(at: Date, days: number): Date {
  let time = DateTime.fromJSDate(at, { zone: WORKING_DAYS_ZONE });
  if (time.weekday > 5) time = time.plus({ days: 8 - time.weekday }).startOf('day');
  for (let left = days; left > 0;) {
    time = time.plus({ days: 1 });
    if (time.weekday <= 5) left -= 1;
  }
  return time.toJSDate();
}

const WAITING = [SubjectivityStatus.OPEN, SubjectivityStatus.RESPONDED, SubjectivityStatus.REJECTED].map((s) => `'${s}'`).join(', ');

/**
 * Subjectivities past their `due_at` and not cleared, of a tender that is not CLOSED, of the ordered option once cover
 * is ordered: marked in one conditional statement, so each is raised once however many instances sweep at once
 * (PostgreSQL re-checks the condition on a row another instance changed meanwhile; SQLite has one writer).
 */
const OVERDUE = `update subjectivity set overdue_at = ?
  where overdue_at is null and due_at < ? and status in (${WAITING})
    and exists (select 1 from tender t where t.id = subjectivity.tender_id and t.status <> '${TenderStatus.CLOSED}'
      and (t.ordered_option_id is null or t.ordered_option_id = subjectivity.quote_option_id))
  returning id, tender_id, insurer_id, status, due_at,
    (select t.status from tender t where t.id = subjectivity.tender_id) as tender_status,
    (select t.broker_company_id from tender t where t.id = subjectivity.tender_id) as broker_company_id`;

interface OverdueRow {
  id: string;
  tender_id: string;
  insurer_id: string;
  status: SubjectivityStatus;
  due_at: unknown;
  tender_status: TenderStatus;
  broker_company_id: string;
}

/**
 * The binding's reminders (SUBJECTIVITY_SWEEP_MS, every instance): SUBJECTIVITY_OVERDUE once per subjectivity past its
 * due date, COVER_ORDER_OVERDUE once per order left unanswered for COVER_ORDER_REMINDER working days.
 */
export class BindReminders {
  constructor(
    private readonly orm: MikroORM,
    private readonly options: { reminderDays: number; listeners: readonly QuoteEventListener[] },
  ) {}

  async sweep(now: Date): Promise<{ subjectivities: number; orders: number }> {
    return { subjectivities: await this.subjectivities(now), orders: await this.orders(now) };
  }

  private subjectivities(now: Date): Promise<number> {
    return this.orm.em.fork().transactional(async (tx) => {
      const platform = tx.getPlatform();
      const at = platform.processDateProperty(now);
      const rows = (await tx.getConnection().execute(OVERDUE, [at, at], 'all', tx.getTransactionContext())) as OverdueRow[];
      for (const row of rows) {
        const event = {
          kind: 'subjectivityOverdue' as const,
          tender: { id: row.tender_id, status: row.tender_status, brokerCompanyId: row.broker_company_id },
          subjectivityId: row.id,
          subjectivityStatus: row.status,
          insurerId: row.insurer_id,
          dueAt: dateOfColumn(row.due_at),
          at: now,
        };
        for (const listener of this.options.listeners) await listener(tx, event);
      }
      return rows.length;
    });
  }

  /**
   * Orders waiting longer than the reminder's calendar days are the candidates (working days are never fewer); each
   * due one is marked by a conditional update of its own, in its own transaction, and raised by whoever marked it.
   */
  private async orders(now: Date): Promise<number> {
    const earliest = new Date(now.getTime() - this.options.reminderDays * 86_400_000);
    const candidates = await this.orm.em.fork().find(
      Tender,
      {
        status: TenderStatus.IN_COVERNOTE,
        coverAcceptedAt: null,
        coverOrderOverdueAt: null,
        coverOrderedAt: { $ne: null, $lt: earliest },
        awardedInsurer: { $ne: null },
      },
      { fields: ['id', 'status', 'brokerCompany', 'awardedInsurer', 'coverOrderedAt'], limit: 500 },
    );
    let raised = 0;
    for (const tender of candidates) {
      const orderedAt = tender.coverOrderedAt!;
      if (afterWorkingDays(orderedAt, this.options.reminderDays) > now) continue;
      const marked = await this.orm.em.fork().transactional(async (tx) => {
        const changed = await tx.nativeUpdate(
          Tender,
          { id: tender.id, status: TenderStatus.IN_COVERNOTE, coverAcceptedAt: null, coverOrderOverdueAt: null, coverOrderedAt: orderedAt },
          { coverOrderOverdueAt: now },
        );
        if (changed !== 1) return false;
        const event = {
          kind: 'coverOrderOverdue' as const,
          tender: { id: tender.id, status: tender.status, brokerCompanyId: tender.brokerCompany.id },
          insurerId: tender.awardedInsurer!.id,
          orderedAt,
          at: now,
        };
        for (const listener of this.options.listeners) await listener(tx, event);
        return true;
      });
      if (marked) raised += 1;
    }
    return raised;
  }
}

/** The reminders as a periodic task, on every instance (each reminder is raised once): at start, then every period. */
export function bindRemindersTask(reminders: BindReminders, everyMs: number): PeriodicTask {
  return { name: 'bind reminders sweep', everyMs, allInstances: true, atStart: true, run: (now) => reminders.sweep(now) };
}
