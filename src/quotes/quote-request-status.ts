import { registerEnumType } from 'type-graphql';
import { TenderStatus } from '../tenders';

/**
 * QUEUED → PROCESSING → AVAILABLE → QUOTED | DECLINED | REFERRED, or FAILED from QUEUED or AVAILABLE;
 * REFERRED → AVAILABLE on the insurer's next callback; QUOTED → EXPIRED when its validity passes.
 * AWAITING_MANUAL → QUOTED | DECLINED | REFERRED for an insurer without an API, answered through GraphQL.
 * QUEUED: recorded, not yet acknowledged by the insurer system (it may be in flight).
 * PROCESSING: acknowledged with the insurer's id; waiting for its callback.
 * AVAILABLE: the callback arrived; the quote is being fetched.
 * QUOTED / DECLINED: the quote is stored (DECLINED = no options, not a failure).
 * REFERRED: the underwriter refers the risk (its reason says why); waits for a further callback for the same id.
 * EXPIRED: a quote whose `validUntil` has passed; it cannot be ordered.
 * AWAITING_MANUAL: an insurer without an API was asked; nothing is sent, its answer is entered through GraphQL.
 * AWAITING_INFORMATION: asked for in FLEXIBLE mode while the risk assessment lacked answers this insurer requires;
 * nothing is sent until a submitted assessment has them, then it goes on as QUEUED (or AWAITING_MANUAL).
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
  REFERRED = 'REFERRED',
  EXPIRED = 'EXPIRED',
  AWAITING_MANUAL = 'AWAITING_MANUAL',
  AWAITING_INFORMATION = 'AWAITING_INFORMATION',
  FAILED = 'FAILED',
  CANCELLED = 'CANCELLED',
}

registerEnumType(QuoteRequestStatus, { name: 'QuoteRequestStatus', description: 'Where a quote request to one insurer stands.' });

/** States of a request that has not ended: a tender has at most one of them per insurer. */
export const LIVE: readonly QuoteRequestStatus[] = [
  QuoteRequestStatus.QUEUED,
  QuoteRequestStatus.PROCESSING,
  QuoteRequestStatus.AVAILABLE,
  QuoteRequestStatus.REFERRED,
  QuoteRequestStatus.AWAITING_MANUAL,
  QuoteRequestStatus.AWAITING_INFORMATION,
];

/**
 * Tender statuses in which quotes are asked for and answered: those in which cover may still be ordered. Once it is
 * ordered (IN_COVERNOTE, then SUCCESSFUL) or the tender closed, open requests are cancelled and no answer is stored,
 * whether an insurer system's or a manual one (tender-closing.ts).
 */
export const QUOTABLE: readonly TenderStatus[] = [TenderStatus.QUOTES_AVAILABLE, TenderStatus.IN_NEGOTIATION, TenderStatus.REOPENED];

/** States with work for the dispatcher: send the request, or fetch the quote. */
export const DISPATCHABLE: readonly QuoteRequestStatus[] = [QuoteRequestStatus.QUEUED, QuoteRequestStatus.AVAILABLE];

/** Where a quote came from: the insurer's API (spec 4.4), or entered through GraphQL for an insurer without one. */
export enum QuoteSource {
  API = 'API',
  MANUAL = 'MANUAL',
}

/** How quotes are asked for from the risk assessment when an insurer's required answers are missing. */
export enum QuoteRequestMode {
  /** Refuse the whole request (ANSWERS_MISSING), naming each insurer and its missing answers. */
  STRICT = 'STRICT',
  /** Send to the insurers whose answers are complete; the others wait (AWAITING_INFORMATION) and go out once they are. */
  FLEXIBLE = 'FLEXIBLE',
}

registerEnumType(QuoteRequestMode, {
  name: 'QuoteRequestMode',
  description: "What requestQuotes does when an insurer's required risk answers are missing.",
});

registerEnumType(QuoteSource, { name: 'QuoteSource', description: "Where a quote request's answer comes from." });

/** An underwriter's answer (spec 2.5 `decision`, optional: options mean QUOTED, none DECLINED). */
export enum QuoteDecision {
  QUOTED = 'QUOTED',
  DECLINED = 'DECLINED',
  REFERRED = 'REFERRED',
}

registerEnumType(QuoteDecision, { name: 'QuoteDecision', description: "An underwriter's answer to a quote request." });

/** When a condition of a quote must be met: before cover is bound, or after. */
export enum SubjectivityStage {
  PRE_BIND = 'PRE_BIND',
  POST_BIND = 'POST_BIND',
}

registerEnumType(SubjectivityStage, { name: 'SubjectivityStage' });

/**
 * Where a subjectivity stands (docs/lifecycle.md, "Binding"): OPEN until the broker responds (RESPONDED), then the
 * insurer decides: ACCEPTED or WAIVED clear it, REJECTED asks for another response (it is open again).
 */
export enum SubjectivityStatus {
  OPEN = 'OPEN',
  RESPONDED = 'RESPONDED',
  ACCEPTED = 'ACCEPTED',
  REJECTED = 'REJECTED',
  WAIVED = 'WAIVED',
}

registerEnumType(SubjectivityStatus, { name: 'SubjectivityStatus' });

/** An insurer's decision on a subjectivity. */
export enum SubjectivityDecision {
  ACCEPT = 'ACCEPT',
  REJECT = 'REJECT',
  WAIVE = 'WAIVE',
}

registerEnumType(SubjectivityDecision, { name: 'SubjectivityDecision' });

/** A step in a subjectivity's history. */
export enum SubjectivityStepKind {
  RESPONDED = 'RESPONDED',
  ACCEPTED = 'ACCEPTED',
  REJECTED = 'REJECTED',
  WAIVED = 'WAIVED',
}

registerEnumType(SubjectivityStepKind, { name: 'SubjectivityStepKind' });
