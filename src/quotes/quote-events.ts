import type { EntityManager } from '@mikro-orm/core';
import type { TenderStatus } from '../tenders';
import type { QuoteRequestStatus, SubjectivityStatus } from './quote-request-status';

/** The tender an event is about, as it stood when the event was recorded: what its audiences are told. */
export interface QuoteEventTender {
  id: string;
  status: TenderStatus;
  brokerCompanyId: string;
}

/** What happened in the quotation flow, as the features above quotes (webhooks) see it inside its transaction. */
type QuoteEvent =
  /** An insurer was invited to a tender (its first quote request there). */
  | {
      kind: 'invited';
      tender: QuoteEventTender;
      insurerId: string;
      at: Date;
      /**
       * A MANUAL insurer's: the link of its quote page for the request (the invitation mail carries it), and the origin
       * its URL starts with when PUBLIC_URL is unset.
       */
      underwritingLink?: { id: string; origin: string };
    }
  /**
   * An insurer's answer was stored: QUOTED with options, DECLINED, REFERRED (a further answer follows), or EXPIRED (a
   * quote already past its validity).
   */
  | { kind: 'quoteReceived'; tender: QuoteEventTender; quoteRequestId: string; insurerId: string; status: QuoteRequestStatus; at: Date }
  /** A quote's validity ends within the warning period (`expiring`), or has ended (`expired`). */
  | {
      kind: 'quoteExpiring' | 'quoteExpired';
      tender: QuoteEventTender;
      quoteRequestId: string;
      insurerId: string;
      validUntil: Date;
      at: Date;
    }
  /** A subjectivity's step: the broker responded, or the quoting insurer decided (accepted, rejected, waived). */
  | {
      kind: 'subjectivityResponded' | 'subjectivityDecided';
      tender: QuoteEventTender;
      subjectivityId: string;
      subjectivityStatus: SubjectivityStatus;
      stepId: string;
      insurerId: string;
      at: Date;
    }
  /** A subjectivity not cleared by its `dueAt`: raised once. */
  | {
      kind: 'subjectivityOverdue';
      tender: QuoteEventTender;
      subjectivityId: string;
      subjectivityStatus: SubjectivityStatus;
      insurerId: string;
      dueAt: Date;
      at: Date;
    }
  /** An order to cover left unanswered for COVER_ORDER_REMINDER working days: raised once per order. */
  | { kind: 'coverOrderOverdue'; tender: QuoteEventTender; insurerId: string; orderedAt: Date; at: Date }
  /**
   * A SUCCESSFUL tender's renewal reminder (docs/renewals.md): RENEWAL_DUE (RENEWAL_LEAD_DAYS before the notice deadline),
   * NOTICE_DEADLINE_APPROACHING (14 days before) or NOTICE_DEADLINE_PASSED; each once per period and tender.
   */
  | { kind: 'renewalReminder'; tender: QuoteEventTender; reminder: RenewalReminder; noticeDeadline: Date; at: Date }
  /** The broker gave notice of non-renewal before the deadline: the incumbent insurer is told (ids only). */
  | { kind: 'nonRenewalNotified'; tender: QuoteEventTender; insurerId: string; noticeDeadline: Date; at: Date };

/** The renewal reminders, in the order they come. */
export enum RenewalReminder {
  RENEWAL_DUE = 'RENEWAL_DUE',
  NOTICE_DEADLINE_APPROACHING = 'NOTICE_DEADLINE_APPROACHING',
  NOTICE_DEADLINE_PASSED = 'NOTICE_DEADLINE_PASSED',
}

/** Runs inside the transaction that records the event: its writes commit with it or not at all. */
export type QuoteEventListener = (em: EntityManager, event: QuoteEvent) => Promise<void>;
