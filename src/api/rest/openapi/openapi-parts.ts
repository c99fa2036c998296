/** Pieces every part of the OpenAPI document uses. */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: ref('Problem') } } });
export const nullable = (schema: object) => ({ oneOf: [schema, { type: 'null' }] });
export const timestamp = { type: 'string', format: 'date-time', examples: ['2026-05-04T09:15:00.000Z'] };
export const id = { type: 'string', examples: ['7d3c9a52-4f1e-4b8a-9c6d-2e5f8a1b0c34'] };

/** The envelope of every REST list (spec 2.2): `count`, `skip` and `limit` are strings, as the specification has them. */
const pageMetadata = {
  count: {
    type: 'string',
    pattern: '^\\d+$',
    description: 'Total matching, not the page size (a string, as the specification has it).',
    examples: ['42'],
  },
  skip: { type: 'string', pattern: '^\\d+$', examples: ['0'] },
  limit: { type: 'string', pattern: '^\\d+$', examples: ['50'] },
};

/**
 * `{metadata: {count}, payload}`: a whole list, not paged (a product's question sets, a tender's messages); `count` and
 * `payload` take what their schemas add (a description, examples).
 */
export const countedListOf = (items: object, { count = {}, payload = {} }: { count?: object; payload?: object } = {}) => ({
  type: 'object',
  required: ['metadata', 'payload'],
  additionalProperties: false,
  properties: {
    metadata: {
      type: 'object',
      required: ['count'],
      additionalProperties: false,
      properties: { count: { type: 'string', pattern: '^\\d+$', ...count } },
    },
    payload: { type: 'array', items, ...payload },
  },
});

/** `{metadata, payload}`: a page of `items`, with the page's metadata and any `more` a list adds (tenders: `sort`). */
export const listOf = (items: object, more: Record<string, object> = {}) => ({
  type: 'object',
  required: ['metadata', 'payload'],
  additionalProperties: false,
  properties: {
    metadata: {
      type: 'object',
      required: ['count', 'skip', 'limit', ...Object.keys(more)],
      additionalProperties: false,
      properties: { ...pageMetadata, ...more },
    },
    payload: { type: 'array', items },
  },
});

export const bearerErrors = {
  '401': problem('No, malformed, expired, revoked or foreign token (WWW-Authenticate: Bearer error="invalid_token").'),
  '403': problem("The token's role may not use this path."),
  '429': problem('Too many requests from this client (Retry-After).'),
  '431': problem('The request headers are too large (for example a huge token).'),
};

/** The headers that matter to a client, once: referenced from every response that carries them. */
export const headers = {
  'WWW-Authenticate': {
    description: 'Why the token was refused (RFC 6750).',
    schema: { type: 'string' },
    example: 'Bearer error="invalid_token"',
  },
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 1 }, example: 30 },
  RateLimit: {
    description: "The client's remaining quota (r) and the seconds until it resets (t), IETF httpapi RateLimit headers (draft 8 on).",
    schema: { type: 'string' },
    example: '"client"; r=599; t=60',
  },
  'RateLimit-Policy': {
    description: 'The quota (q) and its window in seconds (w), and the partition key (pk) it counts under.',
    schema: { type: 'string' },
    example: '"client"; q=600; w=60; pk=:Xk0aF4yHn2RC:',
  },
  Location: {
    description: 'Where the created resource is.',
    schema: { type: 'string' },
    example: '/integration/v1/webhook-endpoints/4b1f0f5e-2c7a-4c1e-9d55-0b6a3c2e8f10',
  },
  ETag: {
    description: 'The version of this answer for this client: send it back as If-None-Match, and nothing new is a 304 without a body.',
    schema: { type: 'string' },
    example: '"mXw4G2fQy0n1b7oS8cU3kq9vJt5aLe6R"',
  },
  'Cache-Control': {
    description: 'Private to the client, revalidated before each use.',
    schema: { type: 'string' },
    example: 'private, no-cache',
  },
  'X-Request-Id': {
    description: "The request's id in the gateway's logs (the caller's own when it sent a sane one).",
    schema: { type: 'string' },
    example: 'c0a8012e-6f2b-4d31-9a57-2f6e1b7c9d44',
  },
};

const header = (name: keyof typeof headers) => ({ $ref: `#/components/headers/${name}` });

/** Conditional reads (RFC 9110 13.1.2): every REST tender read is tagged, and a known tag is a 304. */
export const conditional = { ETag: header('ETag'), 'Cache-Control': header('Cache-Control') };
export const ifNoneMatch = {
  name: 'If-None-Match',
  in: 'header',
  schema: { type: 'string' },
  description:
    'The ETag of an earlier answer: 304 when nothing this client sees has changed since. `*`: 304 when the resource exists for this client.',
};
export const notModified = { description: 'Nothing this client sees has changed since the ETag it sent; no body.', headers: conditional };

/** Groups of operations, by the path they start with (the first that matches). */
const TAGS: { name: string; description: string; prefix: RegExp }[] = [
  // First: its paths sit under the tender paths of the APIs and the integration API.
  {
    name: 'Risk assessment',
    description:
      "Question sets (read by every role's API) and a tender's risk answers: read under /public/v1 and /api/v1, saved under /integration/v1 (docs/risk-assessment.md).",
    prefix: /\/question-sets(\/|$)|\/risk-assessment$/,
  },
  {
    name: 'Binding',
    description:
      'A tender\'s subjectivities, read under /public/v1 and /api/v1, decided and the order to cover answered under /integration/v1 (docs/lifecycle.md, "Binding").',
    prefix: /\/subjectivities(\/|$)|\/cover-order\/decision$/,
  },
  {
    name: 'Clarification threads',
    description: "A tender's messages between its broker and each invited insurer, read under /public/v1 and /api/v1 (docs/people.md).",
    prefix: /\/messages$/,
  },
  {
    name: 'Renewals',
    description: 'What is due before the notice deadline, for broker systems (docs/renewals.md).',
    prefix: /^\/api\/v1\/renewals$/,
  },
  { name: 'Insurer tenders', description: 'The tender read API for insurer systems (spec 4.1).', prefix: /^\/public\/v1\/tenders/ },
  { name: 'Broker tenders', description: 'The tender read API for broker systems (spec 4.2).', prefix: /^\/api\/v1\/tenders/ },
  {
    name: 'Webhooks',
    description: "A client's webhook endpoints and their delivery logs; the events themselves are under `webhooks`.",
    prefix: /webhook-endpoints/,
  },
  {
    name: 'Policy documentation',
    description: 'The winning insurer confirms the policy documentation (the integration API, /integration/v1).',
    prefix: /^\/integration\/v1\/tenders\//,
  },
  {
    name: 'Documents',
    description: "A document's upload URL and download links: no bearer token, the URL is the credential (docs/documents.md).",
    prefix: /^\/integration\/v1\/document-/,
  },
  {
    name: 'Tokens',
    description: 'The token service (spec 4.3, 5) and its OAuth 2.0 forms (RFC 6749 4.4, RFC 7009, RFC 8414).',
    prefix: /^\/(auth\/|\.well-known\/oauth-)/,
  },
  { name: 'Quotation', description: 'The quote-available callback of insurer systems (spec 4.5).', prefix: /^\/aggregation-gateway\// },
  {
    name: 'Mail',
    description: "A mail's one-click unsubscribe (RFC 8058): no bearer token, the link is the credential (docs/people.md).",
    prefix: /^\/mail\//,
  },
];

export const tags = TAGS.map(({ name, description }) => ({ name, description }));

const words = (text: string) => text.split(/[^A-Za-z0-9]+/).filter(Boolean);
const camel = (parts: string[]) =>
  parts.map((part, i) => (i === 0 ? part.toLowerCase() : part[0].toUpperCase() + part.slice(1).toLowerCase())).join('');

/** `GET /public/v1/tenders/{id}` → `getPublicV1TendersById`: stable, unique, and readable in a generated client. */
const operationIdOf = (method: string, path: string): string =>
  camel([
    method,
    ...path
      .split('/')
      .filter(Boolean)
      .flatMap((segment) => (segment.startsWith('{') ? ['By', ...words(segment)] : words(segment))),
  ]);

type Operation = {
  operationId?: string;
  tags?: string[];
  security?: unknown[];
  responses: Record<string, { headers?: Record<string, unknown> }>;
};

/**
 * The conventions every operation follows, applied once over the document: an operationId and a tag, the
 * quota headers on every answer of an authenticated operation, WWW-Authenticate on 401, Retry-After on 429 and
 * 503, Location on 201, the request id everywhere.
 */
export function withConventions<T extends { paths: object; webhooks: object }>(document: T): T {
  const paths = Object.fromEntries(
    Object.entries(document.paths as Record<string, Record<string, Operation>>).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([method, operation]) => {
          const tag = TAGS.find(({ prefix }) => prefix.test(path))!.name;
          const limited = operation.security === undefined || operation.security.length > 0;
          const responses = Object.fromEntries(
            Object.entries(operation.responses).map(([status, response]) => {
              const added: Record<string, unknown> = { 'X-Request-Id': header('X-Request-Id') };
              if (limited && status !== '429')
                Object.assign(added, { RateLimit: header('RateLimit'), 'RateLimit-Policy': header('RateLimit-Policy') });
              if (status === '401') added['WWW-Authenticate'] = header('WWW-Authenticate');
              if (status === '429' || status === '503') added['Retry-After'] = header('Retry-After');
              if (status === '201') added.Location = header('Location');
              return [status, { ...response, headers: { ...added, ...response.headers } }];
            }),
          );
          return [method, { operationId: operationIdOf(method, path), tags: [tag], ...operation, responses }];
        }),
      ),
    ]),
  );
  const webhooks = Object.fromEntries(
    Object.entries(document.webhooks as Record<string, Record<string, Operation>>).map(([name, item]) => [
      name,
      Object.fromEntries(
        Object.entries(item).map(([method, operation]) => [
          method,
          { operationId: camel(words(`${name} event`)), tags: ['Webhooks'], security: [], ...operation },
        ]),
      ),
    ]),
  );
  return { ...document, paths, webhooks };
}
