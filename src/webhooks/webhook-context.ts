import type { UrlAllowList } from '../platform/http/url-allow-list';
import type { QuoteContext } from '../quotes/quote-context';

/** What the endpoint rules need: the URL policy for partners' endpoints, and the grace of a rotated secret. */
export interface WebhookPolicy {
  urlAllowList: UrlAllowList;
  httpsOnly: boolean;
  secretGraceMs: number;
}

export interface WebhookContext extends QuoteContext {
  webhooks: WebhookPolicy;
}
