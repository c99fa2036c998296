import type { EntityManager } from '@mikro-orm/core';
import { Role, seesDocument, type Viewer } from '../access';
import { OPEN_STATUSES, TenderInvitation, type Tender, isRedactedFor, visibilityOf, type TenderVisibility } from '../tenders';
import type { Document } from './document.entity';

/** What the access policy's document rule reads of a tender. */
export interface TenderOfDocuments {
  id: string;
  status: Tender['status'];
  brokerCompanyId: string;
  awardedInsurerId: string | null;
}

export const tenderOfDocuments = (tender: Tender): TenderOfDocuments => ({
  id: tender.id,
  status: tender.status,
  brokerCompanyId: tender.brokerCompany.id,
  awardedInsurerId: tender.awardedInsurer?.id ?? null,
});

/** Whether the viewer, with this visibility of the tender, sees the document: the access policy's one rule. */
export function sees(viewer: Viewer, tender: TenderOfDocuments, visibility: TenderVisibility, document: Document): boolean {
  return seesDocument(viewer, {
    tenderVisibility: visibility,
    tenderOpen: OPEN_STATUSES.includes(tender.status),
    awardedInsurerId: tender.awardedInsurerId,
    kind: document.kind,
    quoteInsurerId: document.quoteRequest?.insurer.id ?? null,
  });
}

/** The visibility of a tender the viewer already found visible (read/: findVisibleTender): full, or redacted. */
export const visibilityOfVisible = (viewer: Viewer, tender: TenderOfDocuments): TenderVisibility =>
  isRedactedFor(viewer, tender.status, tender.awardedInsurerId) ? 'redacted' : 'full';

/** The invited insurers that see a document, for its event: each as the viewer it would be. */
export async function insurersSeeing(em: EntityManager, tender: TenderOfDocuments, document: Document): Promise<string[]> {
  const invitations = await em.find(TenderInvitation, { tender: tender.id });
  const invitedInsurerIds = invitations.map((invitation) => invitation.insurer.id);
  const facts = { ...tender, invitedInsurerIds };
  return invitedInsurerIds.filter((insurerId) => {
    const viewer = { role: Role.INSURER, insurerId } as Viewer;
    return sees(viewer, tender, visibilityOf(viewer, facts), document);
  });
}
