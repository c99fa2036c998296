import type { TenderContext } from '../tenders/tender-context';
import type { QuoteEventListener } from './quote-events';

/** The request context of the quotation operations: who reacts to an invitation inside its transaction. */
export interface QuoteContext extends TenderContext {
  quoteEvents: readonly QuoteEventListener[];
}
