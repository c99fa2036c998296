import type { AccessLinks } from '../links';
import type { TenderContext } from '../tenders';
import type { InsurerChecker } from './onboarding/insurer-check.service';
import type { QuoteEventListener } from './quote-events';

/** The request context of the quotation operations: who reacts to an invitation inside its transaction. */
export interface QuoteContext extends TenderContext {
  quoteEvents: readonly QuoteEventListener[];
  /** Onboarding checks of insurer systems, within the request timeout. */
  insurerChecks: InsurerChecker;
  /** QUOTE_VALIDITY_ZONE: a manual quote's `validUntil` given as a date ends at the end of that day there. */
  quoteValidityZone: string;
  /** Capability links: a MANUAL insurer's quote page. */
  links: AccessLinks;
  /** PUBLIC_URL, else the request's own origin: what a link's URL starts with. */
  publicOrigin: string;
}
