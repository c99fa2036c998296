import type { EntityManager } from '@mikro-orm/core';
import type { BodyConsumer } from '../../platform/http/partner-client';
import type { QuoteEventTender } from '../quote-events';

/** A document an insurer system listed in its quote (spec 2.5's optional `documents`, an addition). */
export interface ListedDocument {
  /** The content type it declares; checked against the bytes. */
  type: string;
  filename: string;
  url: string;
  sha256: string;
}

/** The quote whose documents are fetched, and the way to fetch one: the insurer client (URL policy, deadline, cap). */
export interface QuoteOfDocuments {
  quoteRequestId: string;
  tender: QuoteEventTender;
  insurerId: string;
  download(url: string, maxBytes: number, consume: BodyConsumer): Promise<void>;
}

/** Fetched, checked and stored documents, not yet visible: recorded with the quote, or discarded with it. */
export interface FetchedDocuments {
  /** In the quote's transaction: the documents become visible with the quote. */
  record(tx: EntityManager): Promise<void>;
  /** The quote was not stored: nothing of its documents remains. */
  discard(): Promise<void>;
  /**
   * Set when the documents were refused before any was fetched, for the insurer's own share of the tender's capacity
   * being full: the quote is stored without them and the refusal recorded (`lastError`), never lost.
   */
  refused?: string;
}

/**
 * Fetches the documents of a quote into the document store. Documents sit above quotes, so quotes only declare this
 * port; the documents feature implements it and the composition hands it to the dispatcher. Throws a `PartnerError`.
 */
export interface QuoteDocumentFetcher {
  fetch(quote: QuoteOfDocuments, listed: readonly ListedDocument[]): Promise<FetchedDocuments>;
}
