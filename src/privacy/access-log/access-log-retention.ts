import type { EntityManager } from '@mikro-orm/core';
import { AccessLogEntry } from './access-log-entry.entity';

/**
 * Removes the records older than ACCESS_LOG_RETENTION: the only way a record goes. Every instance runs it on a
 * schedule; a delete by age is idempotent, so instances running it at once remove each row once and fail nothing.
 */
export async function sweepAccessLog(em: EntityManager, retentionMs: number, now = new Date()): Promise<number> {
  return em.nativeDelete(AccessLogEntry, { at: { $lt: new Date(now.getTime() - retentionMs) } });
}
