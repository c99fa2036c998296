import { rolesFor } from '../../../access';
import { TokenRequestBody } from '../../../auth';
import { Cursor, EmptyBody, LIMITS, Timestamp } from '../../../platform/validation/rules';
import { InsurerQuoteSchema, QuoteCallbackBody } from '../../../quotes';
import { LineOfBusinessId, PolicyDocumentationBody } from '../../../tenders';
import { CALLBACK_PATH } from '../quote-callback.routes';
import {
  bearerErrors,
  conditional,
  headers,
  id,
  ifNoneMatch,
  listOf,
  notModified,
  nullable,
  problem,
  ref,
  tags,
  withConventions,
} from './openapi-parts';
import { SORT_FIELDS } from '../tenders/tender-query-params';
import { webhookEvents, webhookPaths, webhookSchemas } from './webhook-openapi';
import { tenderSchemas } from './tender-schemas';
import { VERSION } from '../../../platform/version';
import { documentedDeprecation, type Deprecation } from '../deprecation';
import { oauthPaths, oauthSchemas } from './oauth-openapi';
import { documentPaths, documentSchemas } from './document-openapi';
import { mailPaths } from './mail-openapi';
import { accessLogPaths, accessLogSchemas } from './access-log-openapi';
import { riskPaths, riskSchemas } from './risk-openapi';
import { messagePaths, messageSchemas } from './messages-openapi';
import { renewalsPaths, renewalsSchemas } from './renewals-openapi';
import { bindingPaths, bindingSchemas } from './binding-openapi';
import { ITEM_ROUTES, LIST_ROUTES, POLICY_DOCUMENTATION_ROUTE } from '../tenders/tender.routes';

/**
 * The REST contract (OpenAPI 3.1), served at /openapi.json and /docs. The test suite validates every REST
 * response it receives against it, so it cannot drift from the code.
 */
const SORT_NAMES = Object.keys(SORT_FIELDS);
const listParameters = [
  { name: 'skip', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 }, description: 'Offset.' },
  {
    name: 'limit',
    in: 'query',
    schema: { type: 'integer', minimum: 1, maximum: LIMITS.pageSize, default: LIMITS.defaultPageSize },
    description: 'Page size.',
  },
  {
    name: 'sort',
    in: 'query',
    schema: { type: 'string', pattern: `^-?(${SORT_NAMES.join('|')})(,-?(${SORT_NAMES.join('|')}))*$` },
    description: `Comma list of ${SORT_NAMES.join(', ')}; "-" prefix = descending. Default: -created_at. Ties: _id.`,
  },
  { name: 'status', in: 'query', schema: { type: 'string' }, description: "Comma list of statuses within the path's own set." },
  { name: 'line_of_business', in: 'query', schema: LineOfBusinessId, description: 'A line of business _id.' },
  { name: 'updated_since', in: 'query', schema: Timestamp, description: 'ISO 8601 with offset.' },
  {
    name: 'after',
    in: 'query',
    schema: Cursor,
    description:
      'Continue after the page whose `metadata.next` this is, in the same sort; not with `skip`. Every page then costs what the first does.',
  },
  ifNoneMatch,
];

function listOperation(summary: string, statuses: readonly string[], roles: string, deprecation?: Deprecation) {
  const deprecated = documentedDeprecation(deprecation);
  return {
    get: {
      summary,
      description: `Statuses: ${statuses.join(', ')}. Roles: ${roles}.${deprecated?.summarySuffix ?? ''}`,
      ...(deprecated ? { deprecated: true, 'x-sunset': deprecated['x-sunset'] } : {}),
      security: [{ bearer: [] }],
      parameters: listParameters,
      responses: {
        '200': { description: 'A page of tenders.', headers: conditional, content: { 'application/json': { schema: ref('TenderList') } } },
        '304': notModified,
        '400': problem('A query parameter is unknown, repeated or malformed; errors[].parameter names it.'),
        ...bearerErrors,
      },
    },
  };
}

/** Express's `:id` as OpenAPI's `{id}`. */
const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

function itemOperation(roles: string) {
  return {
    get: {
      summary: 'One tender',
      description: `Roles: ${roles}. A tender the viewer may not see is a 404.`,
      security: [{ bearer: [] }],
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }, ifNoneMatch],
      responses: {
        '200': { description: 'The tender.', headers: conditional, content: { 'application/json': { schema: ref('Tender') } } },
        '304': notModified,
        '400': problem('Query parameters are not accepted here.'),
        '404': problem('No tender with this id is visible to the viewer.'),
        ...bearerErrors,
      },
    },
  };
}

export const openApiDocument = withConventions({
  openapi: '3.1.0',
  info: {
    title: 'Tender Exchange gateway',
    version: VERSION,
    contact: {
      name: 'Tender Exchange integration support',
      url: 'https://tender-exchange.example/support',
      email: 'integration@tender-exchange.example',
    },
    license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    description:
      'Tender read APIs for insurers (/public/v1) and brokers (/api/v1), which only read (GET and HEAD; any other method is a 405 with Allow: GET, HEAD); ' +
      "the question sets and a tender's risk assessment under both; the integration API (/integration/v1: webhook endpoints, the policy documentation confirmation and saving risk answers, REST forms of GraphQL mutations); the token service and the quote-available callback. " +
      'Errors are RFC 9457 problem+json with a stable `code`: 400 BAD_USER_INPUT (errors[] names each field), 401 UNAUTHENTICATED (WWW-Authenticate), 403 FORBIDDEN, 404 NOT_FOUND, ' +
      '405 METHOD_NOT_ALLOWED (with an Allow header naming the methods the path takes), 409 CONFLICT or INVALID_TRANSITION, 413 PAYLOAD_TOO_LARGE, 415 UNSUPPORTED_MEDIA_TYPE, ' +
      '429 RATE_LIMITED (Retry-After), 431 when the request headers are too large, 503 SERVICE_UNAVAILABLE (Retry-After). Every answer carries X-Request-Id; authenticated ones the RateLimit headers.',
  },
  servers: [{ url: '/' }],
  tags,
  components: {
    headers,
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    schemas: {
      Problem: {
        type: 'object',
        required: ['type', 'title', 'status', 'detail', 'code'],
        properties: {
          type: { type: 'string', format: 'uri' },
          title: { type: 'string' },
          status: { type: 'integer', minimum: 400, maximum: 599 },
          detail: { type: 'string' },
          code: { type: 'string', examples: ['BAD_USER_INPUT', 'UNAUTHENTICATED', 'FORBIDDEN', 'NOT_FOUND'] },
          errors: {
            type: 'array',
            items: {
              type: 'object',
              required: ['message'],
              properties: { parameter: { type: 'string' }, pointer: { type: 'string' }, message: { type: 'string' } },
            },
          },
        },
      },
      ...tenderSchemas(),
      // Not a route of the gateway: what an insurer system answers to GET {insurer_base_url}/quotes/{id} (`webhooks`).
      InsurerQuote: InsurerQuoteSchema,
      TenderList: listOf(ref('Tender'), {
        sort: { type: 'object', additionalProperties: { enum: [1, -1] }, examples: [{ updated_at: -1, created_at: 1 }] },
        next: {
          ...nullable({ type: 'string' }),
          description: 'The `after` of the next page, in the same sort; null on the last page (an addition to the envelope of spec 2.2).',
        },
      }),
      TokenRequest: TokenRequestBody,
      ...webhookSchemas,
      ...documentSchemas,
      ...accessLogSchemas,
      ...riskSchemas,
      ...messageSchemas,
      ...bindingSchemas,
      ...renewalsSchemas,
      ...oauthSchemas,
    },
  },
  webhooks: {
    ...webhookEvents,
    // What the gateway asks of insurer systems (spec 4.4), described for their integrators beside the events.
    'insurer-quote': {
      get: {
        summary: 'GET {insurer_base_url}/quotes/{id}: the quote (spec 2.5), fetched after the callback',
        description:
          'Implemented by the insurer system, called by the gateway after the insurer posted the quote-available callback for `id` (the id of its acknowledgement, spec 2.4). ' +
          'Only `id` and `quote_options` are the specification\'s; the quote terms are optional (docs/quotation.md, "Quote terms"). ' +
          'An answer the gateway cannot read fails the quote request (`insurer sent an invalid quote`).',
        responses: { '200': { description: 'The quote.', content: { 'application/json': { schema: ref('InsurerQuote') } } } },
      },
    },
  },
  paths: {
    ...webhookPaths,
    ...documentPaths,
    ...accessLogPaths,
    ...riskPaths,
    ...messagePaths,
    ...bindingPaths,
    ...renewalsPaths,
    ...mailPaths,
    // The tender routes as the router serves them: the same table, so the document cannot drift from it.
    ...Object.fromEntries(
      LIST_ROUTES.map((route) => [
        route.path,
        listOperation(route.summary, route.statuses, rolesFor(route.access).join(', '), route.deprecated),
      ]),
    ),
    ...Object.fromEntries(ITEM_ROUTES.map((route) => [openApiPath(route.path), itemOperation(rolesFor(route.access).join(', '))])),
    [openApiPath(POLICY_DOCUMENTATION_ROUTE.path)]: {
      post: {
        summary: 'Confirm the policy documentation of a SUCCESSFUL tender',
        description: `Roles: ${rolesFor(POLICY_DOCUMENTATION_ROUTE.access).join(', ')} (an insurer only for the tender it won). The REST form of the confirmPolicyDocumentation mutation; formerly at /public/v1/tenders/{id}/policy-documentation, which now answers 405 naming this path. Repeating with the same policy number is harmless.`,
        security: [{ bearer: [] }],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: PolicyDocumentationBody } },
        },
        responses: {
          '200': {
            description: 'The tender, with policy_documentation CONFIRMED.',
            content: { 'application/json': { schema: ref('Tender') } },
          },
          '400': problem('Malformed body.'),
          '404': problem('No such tender visible to the viewer.'),
          '409': problem('Not SUCCESSFUL (INVALID_TRANSITION), or confirmed with another policy number (CONFLICT).'),
          '413': problem('Body too large.'),
          '415': problem('Body is not application/json.'),
          ...bearerErrors,
        },
      },
    },
    ...oauthPaths,
    '/auth/token-revoke': {
      post: {
        summary: 'Revoke the bearer token of this request',
        description:
          'Spec 5: the token of the Authorization header is refused from now on, by every instance. Revoking twice answers 200 again.',
        security: [{ bearer: [] }],
        requestBody: { required: false, content: { 'application/json': { schema: EmptyBody } } },
        responses: {
          '200': { description: 'Revoked (again).', content: { 'application/json': { schema: ref('Revoked') } } },
          '400': problem('A non-empty body.'),
          '401': problem('No valid token.'),
          '413': problem('Body too large.'),
          '415': problem('Body is not application/json.'),
          '429': problem('Too many requests from this client (Retry-After).'),
          '431': problem('The request headers are too large.'),
        },
      },
    },
    [CALLBACK_PATH]: {
      post: {
        summary: 'Quote available (spec 4.5)',
        description: 'Insurer tokens only. Idempotent; the quote is fetched in the background.',
        security: [{ bearer: [] }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: QuoteCallbackBody } },
        },
        responses: {
          '202': {
            description: 'Accepted.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['status', 'quote_request_id'],
                  additionalProperties: false,
                  properties: { status: { const: 'accepted' }, quote_request_id: id },
                },
              },
            },
          },
          '400': problem('Malformed body.'),
          '404': problem('No quote request of this insurer has this id.'),
          '413': problem('Body too large.'),
          '415': problem('Body is not application/json.'),
          ...bearerErrors,
        },
      },
    },
  },
} as const);
