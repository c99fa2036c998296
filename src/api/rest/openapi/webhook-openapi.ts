import { rolesFor } from '../../../access';
import { EmptyBody, LIMITS } from '../../../platform/validation/rules';
import { WebhookEndpointBody, WebhookEndpointChangeBody, WebhookReplayBody } from '../../../webhooks';
import { ALL_STATUSES } from '../../../tenders';
import { WEBHOOK_EVENT_TYPES, WebhookDeliveryStatus } from '../../../webhooks';
import { bearerErrors, listOf, nullable, problem, ref, timestamp } from './openapi-parts';
import { WEBHOOK_ROUTES } from '../webhooks/webhook-endpoint.routes';

const endpoint = {
  type: 'object',
  required: ['_id', 'app_id', 'url', 'event_types', 'description', 'enabled', 'disabled_reason', 'created_at', 'updated_at'],
  additionalProperties: false,
  properties: {
    _id: { type: 'string' },
    app_id: { type: 'string', description: 'The client that receives the events.' },
    url: { type: 'string' },
    event_types: { type: 'array', items: { enum: [...WEBHOOK_EVENT_TYPES] } },
    description: { type: 'string' },
    enabled: { type: 'boolean', description: 'False after a 410 Gone from the endpoint, or when disabled; its events wait meanwhile.' },
    disabled_reason: nullable({ type: 'string' }),
    created_at: timestamp,
    updated_at: timestamp,
  },
};

/** The webhook parts of the OpenAPI document: the endpoints' management routes, and the events sent (`webhooks`). */
export const webhookSchemas = {
  WebhookEndpoint: endpoint,
  CreatedWebhookEndpoint: {
    ...endpoint,
    required: [...endpoint.required, 'secret'],
    properties: {
      ...endpoint.properties,
      secret: { type: 'string', pattern: '^whsec_', description: 'The signing secret, shown only in this answer.' },
    },
  },
  WebhookEvent: {
    type: 'object',
    description: 'The body of every delivery. Thin: read the tender through the API for more.',
    required: ['id', 'type', 'occurred_at', 'data'],
    additionalProperties: false,
    properties: {
      id: {
        type: 'string',
        pattern: '^evt_',
        description: 'The event: the same for every endpoint that receives it, and in every retry or replay.',
      },
      type: { enum: [...WEBHOOK_EVENT_TYPES] },
      occurred_at: timestamp,
      data: {
        oneOf: [
          {
            type: 'object',
            description: 'customer.erased: the erased customer and its tenders, by id only (docs/privacy.md).',
            required: ['customer_id', 'tender_ids'],
            additionalProperties: false,
            properties: {
              customer_id: { type: 'string' },
              tender_ids: {
                type: 'array',
                items: { type: 'string' },
                description: "The customer's tenders of the receiving broker company.",
              },
            },
          },
          ref('TenderEventData'),
        ],
      },
    },
  },
  TenderEventData: {
    type: 'object',
    description: 'Every event but customer.erased.',
    required: ['tender_id', 'status'],
    properties: {
      tender_id: { type: 'string' },
      status: { enum: [...ALL_STATUSES], description: "The tender's status after the event." },
      quote_request_id: { type: 'string', description: 'quote.received, quote.expiring and quote.expired.' },
      quote_status: {
        enum: ['QUOTED', 'DECLINED', 'REFERRED', 'EXPIRED'],
        description:
          "quote.received only: the insurer's decision (REFERRED: a further answer follows; EXPIRED: a quote already past its validity).",
      },
      valid_until: { type: 'string', format: 'date-time', description: "quote.expiring and quote.expired: the quote's validity." },
      notice_deadline: {
        type: 'string',
        format: 'date-time',
        description: 'renewal.due, notice_deadline.approaching and notice_deadline.passed: the notice deadline (docs/renewals.md).',
      },
      insurer_id: { type: 'string', description: 'message.posted: the insurer whose thread it is.' },
      message_id: {
        type: 'string',
        description: 'message.posted: the message; read it with tenderMessages or GET …/tenders/{id}/messages.',
      },
    },
  },
  WebhookDelivery: {
    type: 'object',
    required: [
      '_id',
      'event_id',
      'event_type',
      'payload',
      'status',
      'attempts',
      'next_attempt_at',
      'last_attempt_at',
      'last_status_code',
      'last_error',
      'delivered_at',
      'created_at',
    ],
    additionalProperties: false,
    properties: {
      _id: { type: 'string', description: 'The webhook-id header of every attempt.' },
      event_id: { type: 'string' },
      event_type: { enum: [...WEBHOOK_EVENT_TYPES] },
      payload: ref('WebhookEvent'),
      status: { enum: Object.values(WebhookDeliveryStatus) },
      attempts: { type: 'integer', minimum: 0 },
      next_attempt_at: nullable(timestamp),
      last_attempt_at: nullable(timestamp),
      last_status_code: nullable({ type: 'integer' }),
      last_error: nullable({ type: 'string' }),
      delivered_at: nullable(timestamp),
      created_at: timestamp,
    },
  },
  WebhookDeliveryList: listOf(ref('WebhookDelivery')),
};

const json = (schema: object, description: string) => ({ description, content: { 'application/json': { schema } } });
const idParameter = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
const bodyErrors = { '413': problem('Body too large.'), '415': problem('Body is not application/json.') };

function paths(prefix: string, roles: string) {
  const security = [{ bearer: [] }];
  const notFound = problem('No endpoint of this client has this id.');
  return {
    [prefix]: {
      get: {
        summary: "The client's webhook endpoints",
        description: `Roles: ${roles}, each managing its own client's endpoints here (internal users: GraphQL). Formerly under /public/v1 and /api/v1, which now answer 405 naming this path.`,
        security,
        responses: {
          '200': json({ type: 'array', items: ref('WebhookEndpoint') }, 'The endpoints.'),
          '400': problem('Query parameters are not accepted here.'),
          ...bearerErrors,
        },
      },
      post: {
        summary: 'Register a webhook endpoint',
        description: `Roles: ${roles}. https only in production; the URL policy (INSURER_URL_ALLOW) applies. The signing secret is in this answer only.`,
        security,
        requestBody: { required: true, content: { 'application/json': { schema: WebhookEndpointBody } } },
        responses: {
          '201': json(ref('CreatedWebhookEndpoint'), 'Registered (Location: the endpoint).'),
          '400': problem('Malformed body, an unknown event type, or a URL the policy refuses.'),
          '409': problem('The client has the most endpoints it may have.'),
          ...bodyErrors,
          ...bearerErrors,
        },
      },
    },
    [`${prefix}/{id}`]: {
      get: {
        summary: 'One webhook endpoint',
        description: `Roles: ${roles}. Another client's endpoint is a 404.`,
        security,
        parameters: [idParameter],
        responses: {
          '200': json(ref('WebhookEndpoint'), 'The endpoint.'),
          '400': problem('Query parameters are not accepted here.'),
          '404': notFound,
          ...bearerErrors,
        },
      },
      patch: {
        summary: 'Change a webhook endpoint (URL, event types, description, enabled)',
        description: 'Enabling an endpoint sends the events that waited while it was disabled.',
        security,
        parameters: [idParameter],
        requestBody: { required: true, content: { 'application/json': { schema: WebhookEndpointChangeBody } } },
        responses: {
          '200': json(ref('WebhookEndpoint'), 'The endpoint.'),
          '400': problem('Malformed body.'),
          '404': notFound,
          ...bodyErrors,
          ...bearerErrors,
        },
      },
      delete: {
        summary: 'Remove a webhook endpoint and its delivery log',
        description: 'Pending deliveries are dropped with it.',
        security,
        parameters: [idParameter],
        responses: {
          '204': { description: 'Removed.' },
          '400': problem('Query parameters are not accepted here.'),
          '404': notFound,
          ...bearerErrors,
        },
      },
    },
    [`${prefix}/{id}/rotate-secret`]: {
      post: {
        summary: 'A new signing secret',
        description: 'Every later delivery is signed with the new secret only; it is in this answer only.',
        security,
        parameters: [idParameter],
        requestBody: { required: false, content: { 'application/json': { schema: EmptyBody } } },
        responses: {
          '200': json(ref('CreatedWebhookEndpoint'), 'The endpoint and its new secret.'),
          '400': problem('A non-empty body.'),
          '404': notFound,
          ...bodyErrors,
          ...bearerErrors,
        },
      },
    },
    [`${prefix}/{id}/deliveries`]: {
      get: {
        summary: "The endpoint's delivery log, newest first",
        description: 'Each delivery with its status, attempts, last HTTP status and error, and next attempt.',
        security,
        parameters: [
          idParameter,
          { name: 'status', in: 'query', schema: { enum: Object.values(WebhookDeliveryStatus) } },
          { name: 'skip', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
          {
            name: 'limit',
            in: 'query',
            schema: { type: 'integer', minimum: 1, maximum: LIMITS.pageSize, default: LIMITS.defaultPageSize },
          },
        ],
        responses: {
          '200': json(ref('WebhookDeliveryList'), 'A page of deliveries.'),
          '400': problem('A query parameter is unknown, repeated or malformed.'),
          '404': notFound,
          ...bearerErrors,
        },
      },
    },
    [`${prefix}/{id}/replay`]: {
      post: {
        summary: 'Send the events since a time again',
        description:
          "The newest 1000 at most, whatever became of them (not those awaiting their first attempt), and no more than is left of the client's daily replay volume (WEBHOOK_REPLAY_PER_DAY); each keeps its webhook-id and event id, and waits behind the client's live deliveries. One replay per endpoint at a time.",
        security,
        parameters: [idParameter],
        requestBody: { required: true, content: { 'application/json': { schema: WebhookReplayBody } } },
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['requeued'],
              additionalProperties: false,
              properties: { requeued: { type: 'integer', minimum: 0 } },
            },
            'How many were put back in the outbox.',
          ),
          '400': problem('Malformed body, or a time in the future.'),
          '404': notFound,
          '409': problem('A replay of this endpoint is still running: deliveries it put back await their first attempt.'),
          ...bodyErrors,
          ...bearerErrors,
          '429': problem("Too many requests from this client, or the client's daily replay volume is spent (the detail says until when)."),
        },
      },
    },
  };
}

export const webhookPaths = Object.fromEntries(
  WEBHOOK_ROUTES.flatMap(({ prefix, access }) => Object.entries(paths(prefix, rolesFor(access).join(', ')))),
);

const signatureHeaders = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description: 'The delivery: the same in every retry and replay; de-duplicate on it.',
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    schema: { type: 'string', pattern: '^\\d+$' },
    description: 'Seconds since the epoch, when this attempt was signed.',
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    schema: { type: 'string', pattern: '^v1,' },
    description:
      'v1, then base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` with the endpoint secret (Standard Webhooks); after a rotation, a second signature with the old secret, space-separated, during the grace period.',
  },
];

/** OpenAPI 3.1 `webhooks`: what the gateway sends to registered endpoints. */
export const webhookEvents = Object.fromEntries(
  WEBHOOK_EVENT_TYPES.map((type) => [
    type,
    {
      post: {
        summary: `The ${type} event`,
        parameters: signatureHeaders,
        requestBody: { required: true, content: { 'application/json': { schema: ref('WebhookEvent') } } },
        responses: {
          '200': { description: 'Any 2xx: delivered.' },
          '410': {
            description: 'Gone: this delivery FAILED and the endpoint is disabled; its later events wait until it is enabled again.',
          },
          default: { description: 'Anything else: retried on the schedule (Retry-After honoured when longer).' },
        },
      },
    },
  ]),
);
