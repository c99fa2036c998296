import type { UrlAllowList } from '../platform/http/url-allow-list';
import type { QuoteContext } from '../quotes';

/** What the endpoint rules need: the URL policy for partners' endpoints, the grace of a rotated secret, the replay volume. */
export interface WebhookPolicy {
  urlAllowList: UrlAllowList;
  httpsOnly: boolean;
  secretGraceMs: number;
  /** Deliveries one client's replays may put back in a rolling 24 hours (WEBHOOK_REPLAY_PER_DAY). */
  replayPerDay: number;
}

export interface WebhookContext extends QuoteContext {
  webhooks: WebhookPolicy;
}
