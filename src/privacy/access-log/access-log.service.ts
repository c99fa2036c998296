import type { EntityManager, FilterQuery } from '@mikro-orm/core';
import { Role, sees, type Viewer } from '../../access';
import { Insurer } from '../../insurers';
import { BrokerCompany } from '../../parties';
import { findVisibleTender } from '../../tenders';
import { badInput, notFound } from '../../platform/errors/domain-error';
import { PageRules } from '../../platform/validation/rules';
import { problemsOf } from '../../platform/validation/validate';
import { AccessLogEntry } from './access-log-entry.entity';
import type { AccessLogEntryView, AccessLogFilter, AccessLogPage, AccessLogPaging } from './access-log.types';

/** A tender's access log, for its broker and internal users; NOT_FOUND for whoever else asks, insurers first of all. */
export async function tenderAccessLog(
  em: EntityManager,
  viewer: Viewer,
  tenderId: string,
  paging: AccessLogPaging,
): Promise<AccessLogPage> {
  if (!sees.accessLog(viewer)) throw notFound(`Tender ${tenderId} not found`);
  await findVisibleTender(em, viewer, tenderId);
  return accessLogPage(em, { tenderId }, paging);
}

/** Every client's reads, filtered (internal users). */
export function filteredAccessLog(em: EntityManager, filter: AccessLogFilter, paging: AccessLogPaging): Promise<AccessLogPage> {
  const where: FilterQuery<AccessLogEntry>[] = [];
  if (filter.clientId) where.push({ appId: filter.clientId });
  if (filter.from) where.push({ at: { $gte: filter.from } });
  if (filter.to) where.push({ at: { $lt: filter.to } });
  return accessLogPage(em, { $and: where }, paging);
}

/** The entries of these tenders, oldest first, `limit` at most (the customer data export). */
export async function accessLogOfTenders(em: EntityManager, tenderIds: string[], limit: number): Promise<AccessLogEntryView[]> {
  if (tenderIds.length === 0) return [];
  return present(em, await em.find(AccessLogEntry, { tenderId: { $in: tenderIds } }, { orderBy: { at: 'asc', id: 'asc' }, limit }));
}

async function accessLogPage(em: EntityManager, where: FilterQuery<AccessLogEntry>, paging: AccessLogPaging): Promise<AccessLogPage> {
  const problems = problemsOf(PageRules, { skip: paging.skip, limit: paging.limit });
  if (problems.length > 0) throw badInput(problems.map((p) => `${p.parameter} ${p.message}`).join('; '), problems);
  const [entries, count] = await em.findAndCount(AccessLogEntry, where, {
    orderBy: { at: 'desc', id: 'desc' },
    offset: paging.skip,
    limit: paging.limit,
  });
  return { count, skip: paging.skip, limit: paging.limit, items: await present(em, entries) };
}

/** Entries with their parties' names, read in one query per kind of party. */
async function present(em: EntityManager, entries: AccessLogEntry[]): Promise<AccessLogEntryView[]> {
  const idsOf = (role: Role) => [...new Set(entries.filter((entry) => entry.role === role).map((entry) => entry.partyId))];
  const [insurers, brokers] = await Promise.all([
    em.find(Insurer, { id: { $in: idsOf(Role.INSURER) } }, { fields: ['id', 'name'] }),
    em.find(BrokerCompany, { id: { $in: idsOf(Role.BROKER) } }, { fields: ['id', 'name'] }),
  ]);
  const names = new Map<string, string>([...insurers, ...brokers].map((party) => [party.id, party.name]));
  return entries.map((entry) => ({
    tenderId: entry.tenderId,
    at: entry.at,
    appId: entry.appId,
    role: entry.role,
    party: { id: entry.partyId, name: names.get(entry.partyId) ?? null },
    surface: entry.surface,
    operation: entry.operation,
    count: entry.count,
  }));
}
