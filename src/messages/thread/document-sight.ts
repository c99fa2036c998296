import { seesDocument, type Viewer } from '../../access';
import type { Document } from '../../documents';
import { OPEN_STATUSES, isRedactedFor, type Tender } from '../../tenders';

/**
 * Whether the thread's insurer (invited to the tender) sees the document: the access policy's one document rule,
 * as documents apply it, so a message points only to what its reader may open.
 */
export function insurerSeesDocument(insurer: Viewer, tender: Tender, document: Document): boolean {
  const awardedInsurerId = tender.awardedInsurer?.id ?? null;
  return seesDocument(insurer, {
    tenderVisibility: isRedactedFor(insurer, tender.status, awardedInsurerId) ? 'redacted' : 'full',
    tenderOpen: OPEN_STATUSES.includes(tender.status),
    awardedInsurerId,
    kind: document.kind,
    quoteInsurerId: document.quoteRequest?.insurer.id ?? null,
  });
}
