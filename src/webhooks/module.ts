import type { DocumentEventListener } from '../documents';
import type { CustomerErasureListener } from '../privacy';
import type { QuoteEventListener } from '../quotes';
import type { RiskEventListener } from '../risk';
import type { MessageEventListener } from '../messages';
import type { TenderChangeListener } from '../tenders';
import {
  customerErasuresToWebhooks,
  documentEventsToWebhooks,
  messageEventsToWebhooks,
  quoteEventsToWebhooks,
  riskEventsToWebhooks,
  tenderChangesToWebhooks,
} from './webhook-listeners';
import { WebhookResolver } from './webhook.resolver';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookReplay } from './webhook-replay.entity';

/**
 * What webhooks add to the composition (createApp) beside their outbox worker, the WebhookDispatcher: a listener to
 * each kind of event partners hear of, recording the deliveries in the event's own transaction.
 */
export const webhooksModule = {
  /** Its GraphQL resolvers (the schema, api/graphql/schema.ts). */
  resolvers: [WebhookResolver],
  /** Its entities (the database, src/database.ts). */
  entities: [WebhookDelivery, WebhookEndpoint, WebhookReplay],
  tenderChanges: [tenderChangesToWebhooks] as readonly TenderChangeListener[],
  quoteEvents: [quoteEventsToWebhooks] as readonly QuoteEventListener[],
  documentEvents: [documentEventsToWebhooks] as readonly DocumentEventListener[],
  customerErasures: [customerErasuresToWebhooks] as readonly CustomerErasureListener[],
  riskEvents: [riskEventsToWebhooks] as readonly RiskEventListener[],
  messageEvents: [messageEventsToWebhooks] as readonly MessageEventListener[],
};
