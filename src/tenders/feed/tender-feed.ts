import type { EntityManager, MetadataStorage } from '@mikro-orm/core';
import { scopeOf, type Viewer } from '../../access';
import { setNewest } from '../../platform/bounded-map';

/**
 * Revisions of what each audience of the tender APIs sees, for entity tags that cost one indexed read.
 *
 * A revision is a counter raised inside the transaction of each change, under the row's lock, so it moves with
 * every committed change whatever order concurrent transactions commit in (a latest `updated_at` does not: a
 * change committed late may carry an older time). Audiences: `all` (internal users and analysts), one per broker
 * company, one per insurer (its invitations included). Changes of a party that many tenders show (a person's
 * details) raise `parties`, which every tag includes.
 */
const ALL = 'all';
const PARTIES = 'parties';
const brokerScope = (brokerCompanyId: string) => `broker:${brokerCompanyId}`;
const insurerScope = (insurerId: string) => `insurer:${insurerId}`;

/** The audience whose revision covers what this viewer sees. */
function feedScopeOf(viewer: Viewer): string {
  const scope = scopeOf(viewer);
  if (scope.kind === 'brokerCompany') return brokerScope(scope.brokerCompanyId);
  if (scope.kind === 'insurer') return insurerScope(scope.insurerId);
  return ALL;
}

// Rows in scope order, so concurrent transactions on PostgreSQL take the row locks in one order (no deadlock);
// `where true` tells SQLite's parser that `on conflict` belongs to the insert.
const raise = (source: string) => `
  insert into tender_feed (scope, revision)
  select scope, 1 from (${source}) touched where true order by scope
  on conflict (scope) do update set revision = tender_feed.revision + 1`;

/** Everyone who sees the tender: internal users, its broker company, every insurer invited to it. */
const RAISE_TENDER = raise(`
  select cast(? as varchar(80)) as scope
  union all select cast(? as varchar(80))
  union all select 'insurer:' || ti.insurer_id from tender_invitation ti where ti.tender_id = ?`);

/** A tender changed or was created: in the transaction of the change. */
export async function tenderChanged(em: EntityManager, tender: { id: string; brokerCompanyId: string }): Promise<void> {
  await em.getConnection().execute(RAISE_TENDER, [ALL, brokerScope(tender.brokerCompanyId), tender.id], 'run', em.getTransactionContext());
}

/** Insurers were invited to a tender: their lists now hold it. */
export async function insurersInvited(em: EntityManager, insurerIds: readonly string[]): Promise<void> {
  const scopes = [...new Set(insurerIds)].map(insurerScope);
  if (scopes.length === 0) return;
  const source = scopes.map(() => 'select cast(? as varchar(80)) as scope').join(' union all ');
  await em.getConnection().execute(raise(source), scopes, 'run', em.getTransactionContext());
}

/** A party that tenders show changed (a person's details): every audience's tags change. */
export async function partiesChanged(em: EntityManager): Promise<void> {
  await em.getConnection().execute(raise('select cast(? as varchar(80)) as scope'), [PARTIES], 'run', em.getTransactionContext());
}

const READ = `select scope, revision from tender_feed where scope in (?, '${PARTIES}')`;

/** Revisions read by a request, by its EntityManager fork: the ETag and the count of one request agree. */
const readByRequest = new WeakMap<EntityManager, Promise<string>>();

/**
 * What the viewer sees, as a revision: it differs whenever anything the viewer could see has changed since. Read
 * once per request (its EntityManager fork) and viewer.
 */
export function feedRevisionOf(em: EntityManager, viewer: Viewer): Promise<string> {
  let read = readByRequest.get(em);
  if (!read) readByRequest.set(em, (read = currentRevisionOf(em, viewer)));
  return read;
}

/** The revision as it stands now, not as the request first read it: equal to the first, nothing has changed between. */
export async function currentRevisionOf(em: EntityManager, viewer: Viewer): Promise<string> {
  const scope = feedScopeOf(viewer);
  const rows = (await em.getConnection().execute(READ, [scope], 'all')) as { scope: string; revision: string | number }[];
  const revision = (name: string) => String(rows.find((row) => row.scope === name)?.revision ?? 0);
  return `${scope}.${revision(scope)}.${revision(PARTIES)}`;
}

/** Counts of a database (its ORM's metadata), by audience revision and filters; at most MAX_COUNTS, oldest out first. */
const counts = new WeakMap<MetadataStorage, Map<string, number>>();
const MAX_COUNTS = 10_000;

/**
 * A count of what the viewer sees, computed once per revision of its audience: the revision moves with every change
 * that could change the count (a tender created or changed, an invitation), so while it stands the count does. A
 * count taken just after a change committed may be kept under the revision read just before it: it is then newer
 * than its key, never older. `filters` names what else the count depends on.
 */
export async function countAtRevision(em: EntityManager, viewer: Viewer, filters: string, count: () => Promise<number>): Promise<number> {
  const key = `${await feedRevisionOf(em, viewer)}|${filters}`;
  let known = counts.get(em.getMetadata());
  if (!known) counts.set(em.getMetadata(), (known = new Map<string, number>()));
  const cached = known.get(key);
  if (cached !== undefined) return cached;
  const counted = await count();
  setNewest(known, key, counted, MAX_COUNTS);
  return counted;
}
