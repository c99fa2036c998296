import type { EntityManager } from '@mikro-orm/core';
import type { TenderStatus } from '../tenders';
import type { QuoteRequestStatus } from './quote-request-status';

/** The tender an event is about, as it stood when the event was recorded: what its audiences are told. */
export interface QuoteEventTender {
  id: string;
  status: TenderStatus;
  brokerCompanyId: string;
}

/** What happened in the quotation flow, as the features above quotes (webhooks) see it inside its transaction. */
type QuoteEvent =
  /** An insurer was invited to a tender (its first quote request there). */
  | { kind: 'invited'; tender: QuoteEventTender; insurerId: string; at: Date }
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
    };

/** Runs inside the transaction that records the event: its writes commit with it or not at all. */
export type QuoteEventListener = (em: EntityManager, event: QuoteEvent) => Promise<void>;
