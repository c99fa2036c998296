import type { MikroORM } from '@mikro-orm/core';
import type { Config } from '../platform/config';
import type { PeriodicTask } from '../platform/tasks/periodic-task';
import { sweepAccessLog } from './access-log/access-log-retention';
import type { ErasureServices } from './privacy-context';
import { RetentionSweep, retentionTask } from './retention/retention-sweep';
import { AccessLogResolver } from './access-log/access-log.resolver';
import { CustomerExportResolver } from './export/customer-export.resolver';
import { CustomerErasureResolver } from './erasure/customer-erasure.resolver';
import { AccessLogEntry } from './access-log/access-log-entry.entity';
import { CustomerErasure } from './customer-erasure.entity';

/** How often each instance removes access-log records past ACCESS_LOG_RETENTION. */
const ACCESS_LOG_SWEEP_MS = 60 * 60_000;

/** What privacy adds to the composition (createApp). */
export const privacyModule = {
  /** Its GraphQL resolvers (the schema, api/graphql/schema.ts). */
  resolvers: [AccessLogResolver, CustomerExportResolver, CustomerErasureResolver],
  /** Its entities (the database, src/database.ts). */
  entities: [AccessLogEntry, CustomerErasure],
  /**
   * The access-log sweep (hourly), and the retention sweep when RETENTION_PERSONAL_DATA is set (on the background
   * pool: it erases customers like the dispatcher works, beside the requests).
   */
  tasks(orm: MikroORM, workerOrm: MikroORM, config: Pick<Config, 'privacy' | 'accessLog'>, erasure: ErasureServices): PeriodicTask[] {
    const accessLogSweep: PeriodicTask = {
      name: 'access log sweep',
      everyMs: ACCESS_LOG_SWEEP_MS,
      allInstances: true,
      run: (now) => sweepAccessLog(orm.em.fork(), config.accessLog.retentionMs, now),
    };
    const { retention, sweepIntervalMs } = config.privacy;
    if (!retention) return [accessLogSweep];
    return [accessLogSweep, retentionTask(new RetentionSweep(workerOrm, { period: retention, services: erasure }), sweepIntervalMs)];
  },
};
