/** The face of quotes: what the API, webhooks, statistics and the composition use of quoting. */
export { QuoteOption } from './quote-option.entity';
export { QuoteRequestStatus, QuoteSource } from './quote-request-status';
export { DEFAULT_CURRENCY } from './quote-answer';
export { QuoteRequest } from './quote-request.entity';
export { storedQuoteSizes } from './quote-request-sizes';
export type { QuoteContext } from './quote-context';
export type { QuoteEventListener } from './quote-events';
export { QuoteResolver } from './quote.resolver';
export { InsurerQuoteSchema, QuoteCallbackBody } from './quote-rules';
export { cancelQuoteRequestsOfClosedTender, cancelQuoteRequestsOfErasedCustomer, cancelQuoteRequestsOnOrder } from './tender-closing';
// dispatch/: the outbox that delivers quote requests to insurers
export { QuoteDispatcher, type DispatcherObserver } from './dispatch/quote-dispatcher';
export { PartnerError, Reason } from './dispatch/insurer-client';
export type { FetchedDocuments, ListedDocument, QuoteDocumentFetcher, QuoteOfDocuments } from './dispatch/quote-documents';
// callback/: an insurer's "your quote is ready"
export { EarlyCallback } from './callback/early-callback.entity';
export { parseCallback, receiveCallback } from './callback/quote-callback.service';
// proposal/: the offers side by side
export { ProposalFieldsResolver, ProposalResolver, QuoteRequestFieldsResolver } from './proposal/proposal.resolver';
export { ProposalService, type ProposalResult } from './proposal/proposal.service';
// manual/: the answers of insurers without an API
export { ManualQuoteResolver } from './manual/manual-quote.resolver';
// onboarding/: the check of an insurer's system
export { InsurerCheck } from './onboarding/insurer-check.entity';
export { InsurerCheckResolver } from './onboarding/insurer-check.resolver';
export { InsurerChecker, type InsurerCheckReport } from './onboarding/insurer-check.service';
