import { raw, type EntityManager, type FilterQuery } from '@mikro-orm/core';
import { Role, scopeOf, type Scope, type Viewer } from '../access';
import type { Tender } from './tender.entity';
import { TenderStatus } from './tender-status';

/**
 * Who sees a tender, declared once (DESIGN 2 and 3). A tender's audiences are everyone (internal users and
 * analysts), its broker company, and every insurer invited to it; a viewer belongs to one audience, its access scope.
 * Of what an audience sees, an insurer keeps only the identifying fields of a CLOSED tender and of a SUCCESSFUL
 * one another insurer won.
 *
 * Each kind of audience below states its rule three ways, which `test/tender-audiences.test.ts` drives to agree:
 * in memory (`includes`, over a tender's facts), as the filter of the tenders it sees (the read APIs' lists and
 * reads), and as the SQL that names a given tender's audiences (the feed's revisions and the webhook events).
 */
type TenderAudience = Scope;

/** What decides who sees a tender, and how much. */
export interface TenderFacts {
  brokerCompanyId: string;
  invitedInsurerIds: readonly string[];
  status: TenderStatus;
  awardedInsurerId: string | null | undefined;
}

export type TenderVisibility = 'hidden' | 'redacted' | 'full';

interface AudienceRule<A extends TenderAudience> {
  /** Whether a tender with these facts is shown to the audience. */
  includes: (tender: TenderFacts, audience: A) => boolean;
  /** The tenders shown to the audience, as a query filter. */
  tenders: (audience: A) => FilterQuery<Tender>;
  /** The same tenders, as the filter that counts them fastest (with other filters; read/tender-access.ts). */
  counted: (audience: A) => FilterQuery<Tender>;
  /** A select of one column `audience` (keys, `audienceKey`): the tender's audiences of this kind. */
  ofTender: { sql: string; params: (tender: { id: string; brokerCompanyId: string }) => unknown[] };
}

type Rules = { [K in TenderAudience['kind']]: AudienceRule<Extract<TenderAudience, { kind: K }>> };

/** The key of an audience where it is stored or compared (the feed's revisions): `all`, `broker:<id>`, `insurer:<id>`. */
export function audienceKey(audience: TenderAudience): string {
  switch (audience.kind) {
    case 'all':
      return 'all';
    case 'brokerCompany':
      return `broker:${audience.brokerCompanyId}`;
    case 'insurer':
      return `insurer:${audience.insurerId}`;
  }
}

function audienceOfKey(key: string): TenderAudience {
  const [kind, id] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
  if (kind === 'broker') return { kind: 'brokerCompany', brokerCompanyId: id };
  if (kind === 'insurer') return { kind: 'insurer', insurerId: id };
  return { kind: 'all' };
}

// `cast(? as varchar(80))`: PostgreSQL types an untyped parameter of a union by its first branch.
const RULES: Rules = {
  all: {
    includes: () => true,
    tenders: () => ({}),
    counted: () => ({}),
    ofTender: { sql: 'select cast(? as varchar(80)) as audience', params: () => [audienceKey({ kind: 'all' })] },
  },
  brokerCompany: {
    includes: (tender, audience) => tender.brokerCompanyId === audience.brokerCompanyId,
    tenders: (audience) => ({ brokerCompany: audience.brokerCompanyId }),
    counted: (audience) => ({ brokerCompany: audience.brokerCompanyId }),
    ofTender: {
      sql: 'select cast(? as varchar(80)) as audience',
      params: (tender) => [audienceKey({ kind: 'brokerCompany', brokerCompanyId: tender.brokerCompanyId })],
    },
  },
  insurer: {
    includes: (tender, audience) => tender.invitedInsurerIds.includes(audience.insurerId),
    // EXISTS, not MikroORM's `$some` (an IN over a join): the planner can then walk the sort key's index and
    // probe the invitation index per row, so a first page costs the same whatever the insurer's number of
    // invitations; `$some` sorted every invited tender for each page (docs/benchmark.md).
    tenders: (audience) => ({
      [raw(
        (alias: string) => `exists (select 1 from tender_invitation ti where ti.tender_id = ${alias}.id and ti.insurer_id = ?)`,
        [audience.insurerId],
      )]: [],
    }),
    // IN: a count looks up each invited tender rather than probing the invitations for every tender.
    counted: (audience) => ({
      [raw(
        (alias: string) => `${alias}.id in (select ti.tender_id from tender_invitation ti where ti.insurer_id = ?)`,
        [audience.insurerId],
      )]: [],
    }),
    ofTender: {
      sql: `select 'insurer:' || ti.insurer_id from tender_invitation ti where ti.tender_id = ?`,
      params: (tender) => [tender.id],
    },
  },
};

const ruleOf = <A extends TenderAudience>(audience: A) => RULES[audience.kind] as unknown as AudienceRule<A>;

/** The tenders a viewer may list and read, as a query filter. */
export const tendersVisibleTo = (viewer: Viewer): FilterQuery<Tender> => {
  const audience = scopeOf(viewer);
  return ruleOf(audience).tenders(audience);
};

/** The tenders a viewer may list, as the filter a count of them runs fastest with. */
export const tendersCountedFor = (viewer: Viewer): FilterQuery<Tender> => {
  const audience = scopeOf(viewer);
  return ruleOf(audience).counted(audience);
};

/**
 * Data privacy (DESIGN 3): whether the viewer, of a tender it sees, sees only the identifying fields. An insurer
 * keeps only those of a CLOSED tender and of a SUCCESSFUL tender another insurer won.
 */
export const isRedactedFor = (viewer: Viewer, status: TenderStatus, awardedInsurerId: string | null | undefined): boolean =>
  viewer.role === Role.INSURER &&
  (status === TenderStatus.CLOSED || (status === TenderStatus.SUCCESSFUL && awardedInsurerId !== viewer.insurerId));

/** The whole rule in memory: whether the viewer sees a tender with these facts, and how much of it. */
export function visibilityOf(viewer: Viewer, tender: TenderFacts): TenderVisibility {
  const audience = scopeOf(viewer);
  if (!ruleOf(audience).includes(tender, audience)) return 'hidden';
  return isRedactedFor(viewer, tender.status, tender.awardedInsurerId) ? 'redacted' : 'full';
}

/** A select of one column, `audience` (keys): every audience of the tender whose facts are `?` (`tenderAudienceParams`). */
export const TENDER_AUDIENCES_SQL = Object.values(RULES)
  .map((rule) => rule.ofTender.sql)
  .join(' union all ');

export const tenderAudienceParams = (tender: { id: string; brokerCompanyId: string }): unknown[] =>
  Object.values(RULES).flatMap((rule) => rule.ofTender.params(tender));

/** The tender's audiences as they stand in the caller's transaction (the invitations it has made included). */
export async function audiencesOfTender(em: EntityManager, tender: { id: string; brokerCompanyId: string }): Promise<TenderAudience[]> {
  const rows = (await em
    .getConnection()
    .execute(TENDER_AUDIENCES_SQL, tenderAudienceParams(tender), 'all', em.getTransactionContext())) as { audience: string }[];
  return rows.map((row) => audienceOfKey(row.audience));
}
