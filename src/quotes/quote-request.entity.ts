import { Collection, Entity, Enum, Index, ManyToOne, OneToMany, OptionalProps, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { newId } from '../platform/db/ids';
import { Insurer } from '../insurers/insurer.entity';
import { Tender } from '../tenders/tender.entity';
import { QuoteOption } from './quote-option.entity';
import { QuoteRequestStatus, QuoteSource } from './quote-request-status';
import { LIMITS } from '../platform/validation/rules';

/** One limit of spec 2.3, stored as sent. */
export interface Limit {
  insurance_sum: number;
  deductible: number;
}

/**
 * A quotation request to one insurer: the outbox row the dispatcher delivers, and the record of the answer.
 * Its `id` is the Idempotency-Key of every delivery attempt.
 */
@Entity({ tableName: 'quote_request' })
@Index({ name: 'quote_request_due_idx', properties: ['status', 'nextAttemptAt'] })
// The expiry sweep's one statement: QUOTED requests by validity.
@Index({ name: 'quote_request_validity_idx', properties: ['status', 'validUntil'] })
@Unique({ name: 'quote_request_insurer_reference_unique', properties: ['insurer', 'insurerReference'] })
export class QuoteRequest {
  [OptionalProps]?: 'id' | 'status' | 'attempts' | 'createdAt' | 'updatedAt' | 'riskInformationBytes' | 'source';

  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @ManyToOne({ entity: () => Tender })
  tender!: Tender;

  @ManyToOne({ entity: () => Insurer, index: false })
  insurer!: Insurer;

  @Enum({ items: () => QuoteRequestStatus, type: 'string', length: 24 })
  status: QuoteRequestStatus = QuoteRequestStatus.QUEUED;

  @Property({ type: 'json' })
  limits!: Limit[];

  /**
   * Spec 2.3 `risk_information`, as sent. Up to LIMITS.riskInformationBytes, parsed many times that on the heap:
   * loaded only where asked for (the dispatcher's own statement; `QuoteRequest.riskInformation` in GraphQL).
   */
  @Property({ type: 'json', lazy: true })
  riskInformation!: Record<string, unknown>;

  /** `riskInformation`'s size as compact JSON: what reading it costs is known before it is read. */
  @Property({ type: 'integer' })
  riskInformationBytes: number = 0;

  /** The insurer system's id from its acknowledgement (spec 2.4). */
  @Property({ type: 'string', length: LIMITS.reference, nullable: true })
  insurerReference?: string | null;

  /** Attempts of the current step (send or fetch); reset when a step succeeds. */
  @Property({ type: 'integer' })
  attempts: number = 0;

  @Property({ type: Date, length: 3, nullable: true })
  nextAttemptAt?: Date | null;

  /** Public: one of the fixed reasons of `insurer-client.ts` (`Reason`), never insurer text or database errors. */
  @Property({ type: 'string', length: 1000, nullable: true })
  lastError?: string | null;

  /** Internal users only: what exactly went wrong (sanitised insurer text, socket or database errors). */
  @Property({ type: 'string', length: 1000, nullable: true })
  lastErrorDetail?: string | null;

  /** Public, like `lastError`. */
  @Property({ type: 'string', length: 1000, nullable: true })
  failureReason?: string | null;

  /** Internal users only, like `lastErrorDetail`. */
  @Property({ type: 'string', length: 1000, nullable: true })
  failureDetail?: string | null;

  /** Internal users only: what the gateway dropped from an accepted quote (options for limits not requested). */
  @Property({ type: 'string', length: 1000, nullable: true })
  quoteNote?: string | null;

  /** Until when the quote may be ordered (spec 2.5 `valid_until`, optional); past it the request is EXPIRED. */
  @Property({ type: Date, length: 3, nullable: true })
  validUntil?: Date | null;

  /** The quote's currency as the insurer gave it (spec 2.5 `currency`, optional); null: the tender's (EUR). */
  @Property({ type: 'string', length: 3, nullable: true })
  currency?: string | null;

  /** The underwriter's reason for a decline or referral (spec 2.5 `reason`, optional), control characters escaped. */
  @Property({ type: 'string', length: LIMITS.underwriterReasonStored, nullable: true })
  underwriterReason?: string | null;

  /** When QUOTE_EXPIRING was recorded for this quote: once per quote. */
  @Property({ type: Date, length: 3, nullable: true })
  expiryWarnedAt?: Date | null;

  /** API: the insurer system answers (spec 4.4); MANUAL: its answer is entered through GraphQL. */
  @Enum({ items: () => QuoteSource, type: 'string', length: 8 })
  source: QuoteSource = QuoteSource.API;

  /** Who entered a manual answer (an app_id): the insurer's own client, or an internal user on its behalf. */
  @Property({ type: 'string', length: 64, nullable: true })
  answeredBy?: string | null;

  @Property({ type: 'string', length: 36, nullable: true })
  leaseOwner?: string | null;

  @Property({ type: Date, length: 3, nullable: true })
  leaseUntil?: Date | null;

  /**
   * The W3C `traceparent` of the request that queued it, when tracing is on: the dispatcher's spans link to that
   * request's trace (docs/operations.md, Tracing).
   */
  @Property({ type: 'string', length: 64, nullable: true })
  traceparent?: string | null;

  @Property({ type: 'string', length: 64 })
  requestedBy!: string;

  @OneToMany({ entity: () => QuoteOption, mappedBy: 'quoteRequest', orderBy: { position: 'asc' } })
  options = new Collection<QuoteOption>(this);

  @Property({ type: Date, length: 3, nullable: true })
  acknowledgedAt?: Date | null;

  @Property({ type: Date, length: 3, nullable: true })
  callbackReceivedAt?: Date | null;

  @Property({ type: Date, length: 3, nullable: true })
  quotedAt?: Date | null;

  @Property({ type: Date, length: 3 })
  createdAt: Date = new Date();

  @Property({ type: Date, length: 3 })
  updatedAt: Date = new Date();
}
