import { Type } from '@sinclair/typebox';
import { HttpUrl, LIMITS, Timestamp, nullable, optionalText } from '../platform/validation/rules';

/** The field rules of webhook endpoints: as GraphQL takes them, and the REST bodies (snake_case, as the spec writes them). */

/** Event types one webhook endpoint subscribes to at most. */
const EVENT_TYPES_PER_ENDPOINT = 10;
const EVENT_TYPES_RULE = `1 to ${EVENT_TYPES_PER_ENDPOINT} distinct event types`;
const EventTypes = (description: string) =>
  Type.Array(Type.String({ pattern: '^[a-z_]+\\.[a-z_]+$', description: 'an event type such as tender.status_changed' }), {
    minItems: 1,
    maxItems: EVENT_TYPES_PER_ENDPOINT,
    uniqueItems: true,
    description,
  });

/** A webhook endpoint as GraphQL takes it; the event types are GraphQL's enum there. */
export const WebhookEndpointRules = Type.Object({
  url: nullable(HttpUrl),
  eventTypes: nullable(
    Type.Array(Type.String(), { minItems: 1, maxItems: EVENT_TYPES_PER_ENDPOINT, uniqueItems: true, description: EVENT_TYPES_RULE }),
  ),
  description: nullable(optionalText(LIMITS.name)),
});

export const WebhookEndpointBody = Type.Object(
  { url: HttpUrl, event_types: EventTypes(EVENT_TYPES_RULE), description: Type.Optional(optionalText(LIMITS.name)) },
  {
    additionalProperties: false,
    description: 'a JSON object {"url": "https://...", "event_types": ["tender.status_changed"], "description": "..."}',
  },
);

export const WebhookEndpointChangeBody = Type.Object(
  {
    url: Type.Optional(HttpUrl),
    event_types: Type.Optional(EventTypes(EVENT_TYPES_RULE)),
    description: Type.Optional(optionalText(LIMITS.name)),
    enabled: Type.Optional(Type.Boolean({ description: 'true or false' })),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'a JSON object with one or more of url, event_types, description, enabled',
  },
);

export const WebhookReplayBody = Type.Object(
  { since: Timestamp },
  { additionalProperties: false, description: 'a JSON object {"since": "<timestamp>"}' },
);
