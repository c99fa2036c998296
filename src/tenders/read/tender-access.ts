import { raw, type EntityManager, type FilterQuery } from '@mikro-orm/core';
import { scopeOf, sees, type Viewer } from '../../access';
import { notFound } from '../../platform/errors/domain-error';
import { Tender } from '../tender.entity';
import { TenderStatus } from '../tender-status';
import type { TenderHistoryEntry } from '../tender-history-entry.entity';
import { countInvitations, countTenders, recordOfEntity, type TenderRecord } from './tender-record';
import { PolicyDocumentationStatus, type PolicyDocumentationView, type TenderHistoryEntryView, type TenderView } from './tender.types';

/**
 * Which tenders a viewer may see and which of their fields, as the access policy's scope and field rules say:
 * insurers see the tenders they were invited to; brokers their company's; internal users and analysts all.
 */
export function visibleTenders(viewer: Viewer): FilterQuery<Tender> {
  const scope = scopeOf(viewer);
  switch (scope.kind) {
    case 'all':
      return {};
    case 'brokerCompany':
      return { brokerCompany: scope.brokerCompanyId };
    case 'insurer':
      // EXISTS, not MikroORM's `$some` (an IN over a join): the planner can then walk the sort key's index and
      // probe the invitation index per row, so a first page costs the same whatever the insurer's number of
      // invitations; `$some` sorted every invited tender for each page (docs/benchmark.md).
      return {
        [raw(
          (alias: string) => `exists (select 1 from tender_invitation ti where ti.tender_id = ${alias}.id and ti.insurer_id = ?)`,
          [scope.insurerId],
        )]: [],
      };
  }
}

/**
 * How many tenders the viewer may see among those the filters admit. An insurer's are counted from its
 * invitations, so the count costs what its invitations are, not what every tender is: without filters in the
 * invitation index alone, with filters by looking up each invited tender.
 */
export function countVisibleTenders(em: EntityManager, viewer: Viewer, filters: FilterQuery<Tender>[]): Promise<number> {
  const scope = scopeOf(viewer);
  if (scope.kind !== 'insurer') return countTenders(em, { $and: [visibleTenders(viewer), ...filters] });
  if (filters.length === 0) return countInvitations(em, scope.insurerId);
  const invited = raw<Tender, string>(
    (alias: string) => `${alias}.id in (select ti.tender_id from tender_invitation ti where ti.insurer_id = ?)`,
    [scope.insurerId],
  );
  return countTenders(em, { $and: [{ [invited]: [] }, ...filters] });
}

/** A tender the viewer may see, or NOT_FOUND. */
export async function findVisibleTender(em: EntityManager, viewer: Viewer, tenderId: string): Promise<Tender> {
  const tender = await em.findOne(Tender, { $and: [{ id: tenderId }, visibleTenders(viewer)] }, { populate: ['customer'] });
  if (!tender) throw notFound(`Tender ${tenderId} not found`);
  return tender;
}

/** Whether the viewer sees this tender only by its identifying fields (the access policy's privacy rule). */
export const isRedactedFor = (viewer: Viewer, status: TenderStatus, awardedInsurerId: string | null | undefined): boolean =>
  !sees.tenderInFull(viewer, { closed: status === TenderStatus.CLOSED, successful: status === TenderStatus.SUCCESSFUL, awardedInsurerId });

export function presentTender(tender: TenderRecord, viewer: Viewer): TenderView {
  const redacted = isRedactedFor(viewer, tender.status, tender.awardedInsurerId);
  return {
    id: tender.id,
    status: tender.status,
    product: tender.product,
    lineOfBusiness: tender.lineOfBusiness,
    createdAt: tender.createdAt,
    updatedAt: tender.updatedAt,
    changesMetadata: tender.changesMetadata,
    redacted,
    taxRate: redacted ? null : tender.taxRate,
    customer: redacted ? null : tender.customer,
    brokerCompany: redacted ? null : tender.brokerCompany,
    personInCharge: redacted ? null : tender.personInCharge,
    policyDocumentation: redacted || tender.status !== TenderStatus.SUCCESSFUL ? null : policyDocumentation(tender),
  };
}

/** A tender another feature has just changed (ordered cover), as the viewer may now see it. */
export const presentTenderEntity = (tender: Tender, viewer: Viewer): TenderView => presentTender(recordOfEntity(tender), viewer);

function policyDocumentation(tender: TenderRecord): PolicyDocumentationView {
  return {
    status: tender.policyNumber ? PolicyDocumentationStatus.CONFIRMED : PolicyDocumentationStatus.PENDING,
    policyNumber: tender.policyNumber,
    confirmedAt: tender.policyConfirmedAt,
  };
}

/** History: in full for brokers, internal users and analysts; insurers see no actors, and none of a withheld tender. */
export function presentHistory(entries: TenderHistoryEntry[], redacted: boolean, viewer: Viewer): TenderHistoryEntryView[] {
  if (redacted) return [];
  return entries.map((entry) => ({
    at: entry.at,
    actor: sees.actors(viewer) ? entry.actor : null,
    actorRole: entry.actorRole,
    fromStatus: entry.fromStatus ?? null,
    toStatus: entry.toStatus,
    reason: entry.reason ?? null,
  }));
}
