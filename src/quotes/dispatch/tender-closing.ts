import type { EntityManager, FilterQuery } from '@mikro-orm/core';
import { type TenderChangeListener, TenderStatus } from '../../tenders';
import { Reason } from './insurer-client';
import { LIVE, QuoteRequestStatus } from '../quote-request-status';
import { QuoteRequest } from '../quote-request.entity';

/**
 * Closing a tender cancels its open quote requests in the same transaction: QUEUED ones are not sent (the
 * customer's data stays here), and no quote is stored for PROCESSING, AVAILABLE, REFERRED or AWAITING_MANUAL ones. A request in flight at
 * this moment may still reach the insurer; the dispatcher's conditional updates discard its answer.
 */
export const cancelQuoteRequestsOfClosedTender: TenderChangeListener = async (em, change) => {
  if (change.kind !== 'statusChanged' || change.to !== TenderStatus.CLOSED) return;
  await cancelLiveRequests(em, { tender: change.tender.id }, Reason.tenderClosed, `the tender was closed by ${change.by.appId}`);
};

/**
 * Ordering cover ends the quotation: the tender's open quote requests are cancelled in the order's transaction, as at
 * a close. A quote arriving after it (an insurer system's fetched quote, a manual answer) could never be ordered (the
 * tender only goes on to SUCCESSFUL or CLOSED), so none is stored, ranked or announced (docs/quotation-manual.md, "When").
 */
export const cancelQuoteRequestsOnOrder: TenderChangeListener = async (em, change) => {
  if (change.kind !== 'statusChanged' || change.to !== TenderStatus.IN_COVERNOTE) return;
  await cancelLiveRequests(em, { tender: change.tender.id }, Reason.coverOrdered, `cover was ordered by ${change.by.appId}`);
};

/**
 * Erasing a customer (privacy/) cancels the open quote requests of its tenders in the erasure's transaction, as a
 * close does: their risk information is gone, QUEUED ones are not sent, and no answer (an insurer's text, its
 * documents, a manual answer) is stored for them afterwards. Answers how many were cancelled.
 */
export function cancelQuoteRequestsOfErasedCustomer(em: EntityManager, customerId: string): Promise<number> {
  return cancelLiveRequests(em, { tender: { customer: customerId } }, Reason.customerErased, "the customer's personal data was erased");
}

function cancelLiveRequests(em: EntityManager, where: FilterQuery<QuoteRequest>, reason: string, detail: string): Promise<number> {
  return em.nativeUpdate(
    QuoteRequest,
    { ...(where as object), status: { $in: [...LIVE] } },
    {
      status: QuoteRequestStatus.CANCELLED,
      failureReason: reason,
      failureDetail: detail,
      nextAttemptAt: null,
      leaseOwner: null,
      leaseUntil: null,
      updatedAt: new Date(),
    },
  );
}
