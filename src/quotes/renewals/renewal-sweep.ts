import type { MikroORM } from '@mikro-orm/core';
import type { PeriodicTask } from '../../platform/tasks/periodic-task';
import { Tender, tenderChanged } from '../../tenders';
import type { QuoteEventListener } from '../quote-events';
import { nextSweepAt, sweepStep, type RenewalState } from './renewal-cycle';

/** How many tenders one pass reads at a time; a run passes again while a whole batch was due. */
const BATCH = 200;

const SWEPT = [
  'id',
  'status',
  'brokerCompany',
  'renewalType',
  'noticePeriodMonths',
  'renewalPeriodEnd',
  'noticeDeadline',
  'renewalReminders',
  'renewalSweepAt',
  'nonRenewalNotifiedAt',
] as const;
type Swept = Pick<Tender, (typeof SWEPT)[number]>;

/** A tender's renewal as the sweep reads it, from its row. */
function renewalStateOf(tender: Omit<Swept, 'id' | 'status' | 'brokerCompany' | 'renewalSweepAt'>): RenewalState | null {
  if (!tender.renewalType || !tender.noticePeriodMonths || !tender.renewalPeriodEnd || !tender.noticeDeadline) return null;
  return {
    type: tender.renewalType,
    months: tender.noticePeriodMonths,
    periodEnd: tender.renewalPeriodEnd,
    deadline: tender.noticeDeadline,
    reminders: tender.renewalReminders ?? 0,
    noticed: Boolean(tender.nonRenewalNotifiedAt),
  };
}

/**
 * The renewal sweep (RENEWAL_SWEEP_MS, every instance, docs/renewals.md): the tenders whose `renewal_sweep_at` has come
 * (indexed) are each moved on in a transaction of their own by one conditional update (the sweep time, reminder count
 * and period it read), whose winner alone raises the reminders in the same transaction: once per tender across
 * instances, and a restart in the middle of a sweep leaves each tender either done or still due.
 */
export class RenewalSweep {
  constructor(
    private readonly orm: MikroORM,
    private readonly options: { leadDays: number; listeners: readonly QuoteEventListener[] },
  ) {}

  async sweep(now: Date): Promise<number> {
    let raised = 0;
    for (let pass = 0; pass < 50; pass += 1) {
      const due = await this.orm.em.fork().find(
        Tender,
        { renewalSweepAt: { $lte: now } },
        {
          fields: [...SWEPT],
          orderBy: { renewalSweepAt: 'asc', id: 'asc' },
          limit: BATCH,
        },
      );
      for (const tender of due) raised += await this.step(tender, now);
      if (due.length < BATCH) break;
    }
    return raised;
  }

  private step(tender: Swept, now: Date): Promise<number> {
    const state = renewalStateOf(tender);
    return this.orm.em.fork().transactional(async (tx) => {
      const read = { id: tender.id, renewalSweepAt: tender.renewalSweepAt, renewalReminders: tender.renewalReminders };
      if (!state) {
        await tx.nativeUpdate(Tender, read, { renewalSweepAt: null });
        return 0;
      }
      const { state: next, raised } = sweepStep(state, this.options.leadDays, now);
      const changed = await tx.nativeUpdate(
        Tender,
        { ...read, renewalPeriodEnd: state.periodEnd },
        {
          renewalPeriodEnd: next.periodEnd,
          noticeDeadline: next.deadline,
          renewalReminders: next.reminders,
          renewalSweepAt: nextSweepAt(next, this.options.leadDays),
          // A new year of a tacit renewal: last year's decision was for last year.
          ...(next.periodEnd !== state.periodEnd ? { renewalDecision: null, renewalDecisionReason: null, renewalDecidedAt: null } : {}),
        },
      );
      if (changed !== 1) return 0;
      const about = { id: tender.id, status: tender.status, brokerCompanyId: tender.brokerCompany.id };
      // A tacit renewal's new year moves the notice deadline the tender shows: its readers' ETags must change.
      if (next.periodEnd !== state.periodEnd) await tenderChanged(tx, about);
      for (const reminder of raised)
        for (const listener of this.options.listeners)
          await listener(tx, { kind: 'renewalReminder', tender: about, reminder, noticeDeadline: next.deadline, at: now });
      return raised.length;
    });
  }
}

/** The sweep as a periodic task, on every instance (each reminder is raised once): at start, then every period. */
export function renewalSweepTask(sweep: RenewalSweep, everyMs: number): PeriodicTask {
  return { name: 'renewal sweep', everyMs, allInstances: true, atStart: true, run: (now) => sweep.sweep(now) };
}
