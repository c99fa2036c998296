import type { EntityManager } from '@mikro-orm/core';
import { type TenderChangeListener, TenderStatus } from '../tenders';
import { Reason } from './dispatch/insurer-client';
import { LIVE, QuoteRequestStatus } from './quote-request-status';
import { QuoteRequest } from './quote-request.entity';

/**
 * Closing a tender cancels its open quote requests in the same transaction: QUEUED ones are not sent (the
 * customer's data stays here), and no quote is stored for PROCESSING, AVAILABLE, REFERRED or AWAITING_MANUAL ones. A request in flight at
 * this moment may still reach the insurer; the dispatcher's conditional updates discard its answer.
 */
export const cancelQuoteRequestsOfClosedTender: TenderChangeListener = async (em, change) => {
  if (change.kind !== 'statusChanged' || change.to !== TenderStatus.CLOSED) return;
  await em.nativeUpdate(
    QuoteRequest,
    { tender: change.tender.id, status: { $in: [...LIVE] } },
    {
      status: QuoteRequestStatus.CANCELLED,
      failureReason: Reason.tenderClosed,
      failureDetail: `the tender was closed by ${change.by.appId}`,
      nextAttemptAt: null,
      leaseOwner: null,
      leaseUntil: null,
      updatedAt: new Date(),
    },
  );
};

/**
 * Erasing a customer (privacy/) cancels the open quote requests of its tenders in the erasure's transaction, as a
 * close does: their risk information is gone, QUEUED ones are not sent, and no answer (an insurer's text, its
 * documents, a manual answer) is stored for them afterwards. Answers how many were cancelled.
 */
export function cancelQuoteRequestsOfErasedCustomer(em: EntityManager, customerId: string): Promise<number> {
  return em.nativeUpdate(
    QuoteRequest,
    { tender: { customer: customerId }, status: { $in: [...LIVE] } },
    {
      status: QuoteRequestStatus.CANCELLED,
      failureReason: Reason.customerErased,
      failureDetail: "the customer's personal data was erased",
      nextAttemptAt: null,
      leaseOwner: null,
      leaseUntil: null,
      updatedAt: new Date(),
    },
  );
}
