/** The face of webhooks: what the API and the composition use to deliver tender events to partners. */
export { WebhookDelivery } from './webhook-delivery.entity';
export { WebhookEndpoint } from './webhook-endpoint.entity';
export { WebhookReplay } from './webhook-replay.entity';
export type { WebhookContext, WebhookPolicy } from './webhook-context';
export { WebhookDispatcher, type WebhookObserver } from './webhook-dispatcher';
export { EVENTS_FOR, newWebhookSecret } from './webhook-endpoint.service';
export { WEBHOOK_EVENT_TYPES, WebhookDeliveryStatus, WebhookEventType } from './webhook-event-type';
// module.ts: what the composition (createApp) takes of webhooks: their resolver, entities and listeners to every kind of event
export { webhooksModule } from './module';
export { WebhookEndpointBody, WebhookEndpointChangeBody, WebhookReplayBody } from './webhook-rules';
