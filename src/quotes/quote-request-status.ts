import { registerEnumType } from 'type-graphql';

/**
 * QUEUED → PROCESSING → AVAILABLE → QUOTED | DECLINED, or FAILED from QUEUED or AVAILABLE.
 * QUEUED: recorded, not yet acknowledged by the insurer system (it may be in flight).
 * PROCESSING: acknowledged with the insurer's id; waiting for its callback.
 * AVAILABLE: the callback arrived; the quote is being fetched.
 * QUOTED / DECLINED: the quote is stored (DECLINED = no options, not a failure).
 * FAILED: attempts ran out or the insurer answered something unusable; `failureReason` says what.
 * CANCELLED: the tender was closed before the quote was stored (QUEUED at the close, or a late callback or
 * fetch afterwards); nothing more is sent and no quote is stored.
 */
export enum QuoteRequestStatus {
  QUEUED = 'QUEUED',
  PROCESSING = 'PROCESSING',
  AVAILABLE = 'AVAILABLE',
  QUOTED = 'QUOTED',
  DECLINED = 'DECLINED',
  FAILED = 'FAILED',
  CANCELLED = 'CANCELLED',
}

registerEnumType(QuoteRequestStatus, { name: 'QuoteRequestStatus', description: 'Where a quote request to one insurer stands.' });

/** States of a request that has not ended: a tender has at most one of them per insurer. */
export const LIVE: readonly QuoteRequestStatus[] = [QuoteRequestStatus.QUEUED, QuoteRequestStatus.PROCESSING, QuoteRequestStatus.AVAILABLE];

/** States with work for the dispatcher: send the request, or fetch the quote. */
export const DISPATCHABLE: readonly QuoteRequestStatus[] = [QuoteRequestStatus.QUEUED, QuoteRequestStatus.AVAILABLE];
