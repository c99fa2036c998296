/** The face of quotes: what the API, webhooks, statistics and the composition use of quoting. */
export { QuoteOption } from './quote-option.entity';
export { LIVE, QuoteRequestStatus, QuoteSource } from './quote-request-status';
export { DEFAULT_CURRENCY } from './quote-answer';
export { QuoteRequest } from './quote-request.entity';
export { QuoteRequestView } from './quote.types';
export type { QuoteContext } from './quote-context';
export { RenewalReminder, type QuoteEventListener } from './quote-events';
// renewals/: the notice deadline (docs/renewals.md); mail names its day
export { deadlineDay } from './renewals/notice-deadline';
export { CoverOrderDecisionBody, InsurerQuoteSchema, QuoteCallbackBody, SubjectivityDecisionBody } from './quote-rules';
// request/: a broker asks insurers for quotes, and the reads of its requests
export { storedQuoteSizes } from './request/quote-request-sizes';
// personal-data/: the quote requests' part of a customer's personal data (privacy erases and exports it)
export { quotePersonalData } from './personal-data/quote-personal-data';
// module.ts: what the composition (createApp) takes of quoting: its resolvers, entities, periodic tasks and listeners
export { quotesModule } from './module';
// dispatch/: the outbox that delivers quote requests to insurers, and what a tender's end does to them
export { QuoteDispatcher, type DispatcherObserver } from './dispatch/quote-dispatcher';
export { PartnerError, Reason } from './dispatch/insurer-client';
export type { FetchedDocuments, ListedDocument, QuoteDocumentFetcher, QuoteOfDocuments } from './dispatch/quote-documents';
// callback/: an insurer's "your quote is ready"
export { EarlyCallback } from './callback/early-callback.entity';
export { parseCallback, receiveCallback } from './callback/quote-callback.service';
// proposal/: the offers side by side
export { ProposalService, type ProposalResult } from './proposal/proposal.service';
// subjectivities/: conditions of a quote answered one by one; the decision is one function any adapter (a page) calls
export { TrackedSubjectivity } from './subjectivities/subjectivity.entity';
export { decideSubjectivity, decisionsAllowed, type SubjectivityDeps } from './subjectivities/subjectivity.service';
export { SubjectivityDecision, SubjectivityStatus } from './quote-request-status';
// onboarding/: the check of an insurer's system
export { InsurerCheck } from './onboarding/insurer-check.entity';
export { InsurerChecker } from './onboarding/insurer-check.service';
export type { InsurerCheckReport } from './onboarding/insurer-check-run';
