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
  await cancelLiveRequests(em, change.tender.id, Reason.tenderClosed, `the tender was closed by ${change.by.appId}`);
};

/**
 * Ordering cover ends the quotation: the tender's open quote requests are cancelled in the order's transaction, as at
 * a close. A quote arriving after it (an insurer system's fetched quote, a manual answer) could never be ordered (the
 * tender only goes on to SUCCESSFUL or CLOSED), so none is stored, ranked or announced (docs/quotation.md, "When").
 */
export const cancelQuoteRequestsOnOrder: TenderChangeListener = async (em, change) => {
  if (change.kind !== 'statusChanged' || change.to !== TenderStatus.IN_COVERNOTE) return;
  await cancelLiveRequests(em, change.tender.id, Reason.coverOrdered, `cover was ordered by ${change.by.appId}`);
};

async function cancelLiveRequests(em: EntityManager, tenderId: string, reason: string, detail: string): Promise<void> {
  await em.nativeUpdate(
    QuoteRequest,
    { tender: tenderId, status: { $in: [...LIVE] } },
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
