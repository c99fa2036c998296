import type { EntityManager } from '@mikro-orm/core';
import { Customer, groupedBy } from '../../parties';
import { Tender } from '../../tenders';
import { notFound } from '../../platform/errors/domain-error';
import { LIMITS } from '../../platform/validation/rules';
import { AccessLogEntry } from '../access-log/access-log-entry.entity';
import { accessLogOfTenders } from '../access-log/access-log.service';
import { PERSONAL_DATA } from '../personal-data';

/**
 * One part of everything held about a customer (GDPR art. 15 and 20): the customer, and up to LIMITS.exportTenders
 * of its tenders from `skip` (oldest first) with their history, quote requests (risk information and answers
 * included), documents' metadata and access log. `tenders_total` and `next_skip` tell whether more parts follow:
 * GraphQL pages through them, the CLI streams them all, and no part holds more than its cap in memory. Each feature
 * shows its own records (`PERSONAL_DATA`, in the list's order); this pages, and adds the access log.
 */
export async function customerDataExport(em: EntityManager, customerId: string, skip = 0): Promise<Record<string, unknown>> {
  if ((await em.count(Customer, { id: customerId })) === 0) throw notFound(`Customer ${customerId} not found`);
  const [tenders, total] = await em.findAndCount(
    Tender,
    { customer: customerId },
    { orderBy: { createdAt: 'asc', id: 'asc' }, offset: skip, limit: LIMITS.exportTenders },
  );
  const tenderIds = tenders.map((tender) => tender.id);
  const scope = { customerId, tenderIds };
  const [parts, accessLogCount, accessLog] = await Promise.all([
    Promise.all(PERSONAL_DATA.map((part) => part.export(em, scope))),
    em.count(AccessLogEntry, { tenderId: { $in: tenderIds } }),
    accessLogOfTenders(em, tenderIds, LIMITS.exportAccessLogEntries),
  ]);
  const accessOf = groupedBy(accessLog, (entry) => entry.tenderId);
  const next = skip + tenders.length;
  return {
    exported_at: new Date().toISOString(),
    ...merged(parts.map((part) => part.top)),
    tenders_total: total,
    skip,
    next_skip: next < total ? next : null,
    access_log_complete: accessLogCount <= LIMITS.exportAccessLogEntries,
    tenders: tenderIds.map((tenderId) => ({
      ...merged(parts.map((part) => part.tenders?.get(tenderId))),
      access_log: accessOf(tenderId).map((entry) => ({
        at: entry.at.toISOString(),
        app_id: entry.appId,
        role: entry.role,
        party: { _id: entry.party.id, name: entry.party.name },
        surface: entry.surface,
        operation: entry.operation,
        count: entry.count,
      })),
    })),
  };
}

/** The parts' keys in the parts' order (the list's), each part's in its own. */
function merged(parts: readonly (Record<string, unknown> | undefined)[]): Record<string, unknown> {
  const whole: Record<string, unknown> = {};
  for (const part of parts) Object.assign(whole, part);
  return whole;
}
