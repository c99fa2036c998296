import type { EntityManager } from '@mikro-orm/core';
import { Role, seesDocument, type Viewer } from '../access';
import { OPEN_STATUSES, TenderInvitation, type Tender, isRedactedFor, visibilityOf, type TenderVisibility } from '../tenders';
import { notFound } from '../platform/errors/domain-error';
import { Document } from './document.entity';
import { DocumentState } from './document-kind';

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

/** The documents of a tender that are visible (their bytes arrived), oldest first, their quote requests' insurers loaded. */
export function availableDocuments(em: EntityManager, tenderId: string): Promise<Document[]> {
  return em.find(
    Document,
    { tender: tenderId, state: DocumentState.AVAILABLE },
    { populate: ['quoteRequest'], orderBy: { createdAt: 'asc', id: 'asc' } },
  );
}

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

/** A document the viewer may see among the given tender's, or NOT_FOUND (as a tender one may not see is). */
export function visibleDocument(documents: Document[], viewer: Viewer, tender: TenderOfDocuments, documentId: string): Document {
  const visibility = visibilityOfVisible(viewer, tender);
  const document = documents.find((candidate) => candidate.id === documentId);
  if (!document || !sees(viewer, tender, visibility, document)) throw notFound(`Document ${documentId} not found`);
  return document;
}
