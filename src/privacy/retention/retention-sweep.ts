import type { MikroORM } from '@mikro-orm/core';
import type { Period } from '../../platform/config';
import type { PeriodicTask } from '../../platform/tasks/periodic-task';
import { ErasureTrigger } from '../erasure-trigger';
import type { ErasureServices } from '../privacy-context';
import { eraseCustomer } from '../erasure/customer-erasure.service';

/** Customers looked at per statement; a round takes batches until none is due. */
const BATCH = 100;

/**
 * Customers not erased yet whose tenders have all ended (CLOSED or SUCCESSFUL) before the cut-off: when a tender
 * ended is its last entry into its present status in the history (its last change where none was recorded).
 */
const DUE = `select c.id from customer c
  where c.erased_at is null
  and exists (select 1 from tender t where t.customer_id = c.id)
  and not exists (select 1 from tender t where t.customer_id = c.id and (t.status not in ('CLOSED', 'SUCCESSFUL')
    or coalesce((select max(h.at) from tender_history_entry h where h.tender_id = t.id and h.to_status = t.status), t.updated_at) >= ?))
  and c.id > ?
  order by c.id limit ${BATCH}`;

/** The instant a period before `now`, in UTC; calendar months and years end on their month's last day at most (31 March − 1mo = 28 or 29 February). */
export function cutOff(now: Date, period: Period): Date {
  if (period.unit === 'd') return new Date(now.getTime() - period.amount * 86_400_000);
  const months = now.getUTCMonth() - (period.unit === 'y' ? 12 * period.amount : period.amount);
  const lastDay = new Date(Date.UTC(now.getUTCFullYear(), months + 1, 0)).getUTCDate();
  const at = new Date(now.getTime());
  at.setUTCDate(1);
  at.setUTCMonth(months);
  at.setUTCDate(Math.min(now.getUTCDate(), lastDay));
  return at;
}

/**
 * RETENTION_PERSONAL_DATA: on a schedule (RETENTION_SWEEP_INTERVAL_MS, `retentionTask`), on every instance, erases the customers
 * whose tenders all ended longer ago than the period (docs/privacy.md). Per customer, because the customer's
 * name and address are one row all its tenders show: a customer with an open tender, or one ended recently,
 * keeps its data. Safe on several instances: each erasure claims its customer row, and re-checks in its own
 * transaction that the customer is still due (a tender may have been reopened meanwhile).
 */
export class RetentionSweep {
  constructor(
    private readonly orm: MikroORM,
    private readonly options: { period: Period; services: ErasureServices },
  ) {}

  /** One round: answers how many customers it erased. */
  async sweep(now = new Date()): Promise<number> {
    const before = cutOff(now, this.options.period);
    const reason = `RETENTION_PERSONAL_DATA=${this.options.period.amount}${this.options.period.unit}`;
    const em = this.orm.em.fork();
    let erased = 0;
    let after = '';
    for (;;) {
      const rows = (await em.getConnection().execute(DUE, [em.getPlatform().processDateProperty(before), after], 'all')) as {
        id: string;
      }[];
      for (const { id } of rows) {
        const outcome = await eraseCustomer(em, this.options.services, {
          customerId: id,
          reason,
          by: 'retention',
          trigger: ErasureTrigger.RETENTION,
          endedBefore: before,
        });
        if (outcome && !outcome.alreadyErased) erased += 1;
      }
      if (rows.length < BATCH) return erased;
      after = rows[rows.length - 1].id;
    }
  }
}

/** The sweep as a periodic task: at start (customers who became due while no instance ran), then every interval. */
export function retentionTask(sweep: RetentionSweep, everyMs: number): PeriodicTask {
  return { name: 'retention sweep', everyMs, allInstances: true, atStart: true, run: (now) => sweep.sweep(now) };
}
