import { createHash } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { createTender, receivedQuote } from './helpers/fixtures';
import { TEST_JWT_SECRET, createClient } from './helpers/gateway';
import { withGateway } from './helpers/scene';

/**
 * A generated corpus of malformed and hostile requests across every endpoint. Each must get a 4xx in the
 * documented error shape, none may hang, and afterwards the service is healthy and no data has changed.
 */
interface Attack {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  graphql?: boolean;
  /** An OAuth 2.0 form request: refused with an RFC 6749 5.2 error body (application/json), not a problem. */
  oauth?: boolean;
}

const tokens: Record<string, string> = {};
let tenderId: string;

const MEGABYTE = 'x'.repeat(1024 * 1024);
const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const JSON_BODIES = [
  '',
  '{',
  '{"a":}',
  'null',
  '[]',
  '"just a string"',
  '12345678901234567890123456789012345678901234567890',
  '1e309',
  'true',
  deepArray(5000),
  deepObject(5000),
  `{"app_id":"${MEGABYTE}"}`,
  '{"app_id":"\\ud800","secret":"\\udfff"}',
  '{"app_id":"a\\u0000b","secret":"c"}',
  '{"__proto__":{"admin":true},"app_id":"x","secret":"y"}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"app_id":["x"],"secret":{"$gt":""}}',
  '{"app_id":1e308,"secret":-0}',
  '{"quote_request_id":null}',
  '{"policy_number":"P-1","confirmed_at":"9999-99-99T99:99:99Z"}',
];
const QUERY_ATTACKS = [
  'skip=-1',
  `skip=${'9'.repeat(400)}`,
  'limit=0',
  'limit=1e3',
  'limit=0x10',
  'limit= 5',
  'limit[]=5',
  'limit[$gt]=0',
  'sort=created_at;DROP TABLE tender',
  "sort=created_at',(select 1)",
  'sort=-',
  'sort=,,,',
  "status=OPEN' OR '1'='1",
  'status=CLOSED%00',
  'status=%F0%9F%92%A5',
  'updated_since=2026-13-45T00:00:00Z',
  'updated_since=1e10',
  "line_of_business=' OR 1=1 --",
  `line_of_business=${'a'.repeat(10_000)}`,
  'updated_since=%00',
  '__proto__[x]=1',
  'constructor=1',
  'skip=1&skip=2',
  `x=${'%ZZ'}`,
];
const GRAPHQL_ATTACKS = [
  '{ tenders(limit: 100000) { count } }',
  '{ tenders(skip: -5) { count } }',
  '{ tenders(limit: 99999999999) { count } }',
  '{ tender(id: "x") { id } }',
  `{ ${Array.from({ length: 60 }, (_, i) => `a${i}: tenders { count }`).join(' ')} }`,
  `{ tenders { items { id ${'@include(if: true) '.repeat(50)} } } }`,
  `query { ${'tenders { items { lineOfBusiness { name } } } '.repeat(1)}${'{'.repeat(30)} }`,
  `{ __typename ${' __typename'.repeat(3000)} }`,
  '{ tenders { items { customer { address { nope } } } } }',
  'mutation { createInsurer(input: { name: 1, quoteApiUrl: 2 }) { id } }',
  'subscription { tenders { count } }',
  '{ me { appId } } { me { appId } }',
  'query Q { me { appId } } query Q { me { appId } }',
  '{ tender(id: null) { id } }',
  'fragment F on Tender { id ...F } { tenders { items { ...F } } }',
];

function buildCorpus(): Attack[] {
  const corpus: Attack[] = [];
  const restGet = [
    '/public/v1/tenders',
    '/public/v1/tenders/open',
    '/public/v1/tenders/closed',
    '/api/v1/tenders',
    '/api/v1/tenders/successful',
  ];
  for (const path of restGet) {
    const token = path.startsWith('/api') ? tokens.broker : tokens.insurer;
    for (const query of QUERY_ATTACKS)
      corpus.push({ name: `GET ${path}?${query}`, method: 'GET', path: `${path}?${query}`, headers: { authorization: `Bearer ${token}` } });
  }
  for (const id of ['%00', '..%2F..%2Fetc%2Fpasswd', 'a'.repeat(5000), '%F0%9F%92%A5', "'%20OR%201%3D1--", '%E2%80%AE']) {
    corpus.push({
      name: `GET /api/v1/tenders/${id.slice(0, 20)}`,
      method: 'GET',
      path: `/api/v1/tenders/${id}`,
      headers: { authorization: `Bearer ${tokens.broker}` },
    });
  }
  const bodyTargets: [string, Record<string, string>][] = [
    ['/auth/token', {}],
    ['/auth/token-revoke', { authorization: `Bearer ${tokens.spare}` }],
    ['/aggregation-gateway/v1/public/producer-integration/quotes/available', { authorization: `Bearer ${tokens.insurer}` }],
    [`/integration/v1/tenders/${tenderId}/policy-documentation`, { authorization: `Bearer ${tokens.insurer}` }],
  ];
  for (const [path, headers] of bodyTargets) {
    for (const body of JSON_BODIES) {
      if (path === '/auth/token-revoke' && (body === '' || body === '{}')) continue; // that is the valid request
      corpus.push({
        name: `POST ${path} ${body.slice(0, 30)}`,
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    }
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x']) {
      const oauth = path === '/auth/token' && type === 'application/x-www-form-urlencoded';
      corpus.push({
        name: `POST ${path} as ${type}`,
        method: 'POST',
        path,
        headers: { 'content-type': type, ...headers },
        body: 'a=b',
        oauth,
      });
    }
    corpus.push({
      name: `POST ${path} gzip claimed`,
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', ...headers },
      body: '{"a":1}',
    });
    corpus.push({
      name: `POST ${path} latin1 charset`,
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json; charset=latin1', ...headers },
      body: '{"a":1}',
    });
    for (const method of ['PUT', 'DELETE', 'PATCH']) corpus.push({ name: `${method} ${path}`, method, path, headers });
  }
  for (const query of GRAPHQL_ATTACKS) {
    corpus.push({
      name: `GraphQL ${query.slice(0, 40)}`,
      method: 'POST',
      path: '/graphql',
      graphql: true,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.analyst}` },
      body: JSON.stringify({ query }),
    });
  }
  for (const body of JSON_BODIES.filter((b) => !b.includes('policy_number'))) {
    corpus.push({
      name: `GraphQL body ${body.slice(0, 30)}`,
      method: 'POST',
      path: '/graphql',
      graphql: true,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.analyst}` },
      body,
    });
  }
  corpus.push({
    name: 'GraphQL batched',
    method: 'POST',
    path: '/graphql',
    graphql: true,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.analyst}` },
    body: JSON.stringify([{ query: '{ me { appId } }' }, { query: '{ me { appId } }' }]),
  });
  corpus.push({
    name: 'GraphQL variables of the wrong type',
    method: 'POST',
    path: '/graphql',
    graphql: true,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.analyst}` },
    body: JSON.stringify({ query: 'query($l: Int) { tenders(limit: $l) { count } }', variables: { l: 'ten' } }),
  });
  corpus.push({
    name: 'GraphQL mutation by an analyst',
    method: 'POST',
    path: '/graphql',
    graphql: true,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.analyst}` },
    body: JSON.stringify({ query: `mutation { closeTender(tenderId: "${tenderId}", reason: "x") { id } }` }),
  });

  const now = Math.floor(Date.now() / 1000);
  const claims = { role: 'internal', sub: 'attacker', jti: 'j', iss: 'tender-exchange', aud: 'tender-exchange-api' };
  const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const forged = (header: object, payload: object, secret: string) => {
    const unsigned = `${b64(header)}.${b64(payload)}`;
    return `${unsigned}.${createHash('sha256')
      .update(unsigned + secret)
      .digest('base64url')}`;
  };
  const badTokens: [string, string][] = [
    ['alg none', jwt.sign(claims, '', { algorithm: 'none' })],
    ['alg none, uppercase', `${b64({ alg: 'NONE', typ: 'JWT' })}.${b64(claims)}.`],
    [
      'RS256 header on an HMAC signature (HS/RS confusion)',
      forged({ alg: 'RS256', typ: 'JWT' }, { ...claims, exp: now + 600 }, TEST_JWT_SECRET),
    ],
    ['HS512 with the right secret', jwt.sign(claims, TEST_JWT_SECRET, { algorithm: 'HS512', expiresIn: 600 })],
    [
      'wrong audience',
      jwt.sign({ role: 'internal' }, TEST_JWT_SECRET, {
        audience: 'other',
        issuer: 'tender-exchange',
        subject: 'a',
        jwtid: 'j',
        expiresIn: 600,
      }),
    ],
    [
      'wrong issuer',
      jwt.sign({ role: 'internal' }, TEST_JWT_SECRET, {
        audience: 'tender-exchange-api',
        issuer: 'evil',
        subject: 'a',
        jwtid: 'j',
        expiresIn: 600,
      }),
    ],
    ['expired', jwt.sign({ ...claims, exp: now - 60 }, TEST_JWT_SECRET)],
    ['issued in the future', jwt.sign({ ...claims, iat: now + 7200, exp: now + 9000 }, TEST_JWT_SECRET)],
    ['unknown role', jwt.sign({ ...claims, role: 'root', exp: now + 600 }, TEST_JWT_SECRET)],
    ['insurer without insurer id', jwt.sign({ ...claims, role: 'insurer', exp: now + 600 }, TEST_JWT_SECRET)],
    ['garbage', 'not.a.jwt'],
    ['empty', ''],
    ['huge', 'a'.repeat(20_000)],
    ['latin-1 characters', 't\u00f6k\u00e9n\u00ff'],
    ['three dots', '...'],
    // RFC 6750 allows one or more spaces after the scheme, nothing else.
    ['valid token after a tab', `\t${tokens.broker}`],
  ];
  for (const [name, token] of badTokens) {
    for (const path of ['/api/v1/tenders', '/public/v1/tenders/open', '/graphql']) {
      const isGraphql = path === '/graphql';
      corpus.push({
        name: `token ${name} on ${path}`,
        method: isGraphql ? 'POST' : 'GET',
        path,
        graphql: isGraphql,
        headers: { authorization: `Bearer ${token}`, ...(isGraphql ? { 'content-type': 'application/json' } : {}) },
        body: isGraphql ? JSON.stringify({ query: '{ me { appId } }' }) : undefined,
      });
    }
  }
  for (const scheme of ['Basic dXNlcjpwYXNz', 'bearer', 'Bearer', `Token ${tokens.broker}`, `Bearer ${tokens.broker} extra`]) {
    corpus.push({
      name: `authorization "${scheme.slice(0, 20)}"`,
      method: 'GET',
      path: '/api/v1/tenders',
      headers: { authorization: scheme },
    });
  }
  for (const path of [
    '/api/v2/tenders',
    '/public/v1/../../etc/passwd',
    '/%2e%2e/%2e%2e/etc/passwd',
    `/${'a'.repeat(4000)}`,
    '/api/v1/tenders/x/y/z',
    '/.env',
    '/graphql/../auth/token',
  ]) {
    corpus.push({ name: `GET ${path.slice(0, 30)}`, method: 'GET', path, headers: { authorization: `Bearer ${tokens.broker}` } });
  }
  return corpus;
}

/** Row counts and a digest of every table: "no data changed" means this is the same afterwards. */
async function dataFingerprint(): Promise<string> {
  const connection = scene.gateway.orm.em.getConnection();
  const tables = [
    'tender',
    'tender_invitation',
    'tender_history_entry',
    'quote_request',
    'quote_option',
    'early_callback',
    'insurer',
    'api_client',
    'customer',
    'person',
    'broker_company',
    'line_of_business',
  ];
  const parts: string[] = [];
  for (const table of tables) parts.push(`${table}:${JSON.stringify(await connection.execute(`select * from ${table} order by id`))}`);
  return createHash('sha256').update(parts.join('|')).digest('hex');
}

const scene = withGateway({ per: 'file', env: { RATE_LIMIT_PER_MINUTE: '100000', AUTH_RATE_LIMIT: '100000' }, world: true });

beforeAll(async () => {
  const tender = await createTender(scene.gateway.em(), scene.world);
  await receivedQuote(scene.gateway.em(), tender, scene.world.insurers[0]);
  tenderId = tender.id;
  tokens.broker = await scene.token(Role.BROKER);
  tokens.insurer = await scene.token(Role.INSURER);
  tokens.analyst = await scene.token(Role.ANALYST);
  tokens.spare = await scene.token(Role.BROKER);
  await createClient(scene.gateway, Role.INTERNAL);
});

describe('hostile input', () => {
  it('a corpus of 300+ malformed requests gets only documented 4xx answers, no hang, no data change', async () => {
    const corpus = buildCorpus();
    expect(corpus.length).toBeGreaterThanOrEqual(300);
    const before = await dataFingerprint();
    const failures: string[] = [];
    for (const attack of corpus) {
      const response = await fetch(`${scene.gateway.url}${attack.path}`, {
        method: attack.method,
        headers: attack.headers,
        body: attack.body,
        signal: AbortSignal.timeout(10_000),
      }).catch((error: Error) => error);
      if (response instanceof Error) {
        failures.push(`${attack.name}: ${response.name}`);
        continue;
      }
      const text = await response.text();
      if (response.status < 400 || response.status >= 500) {
        failures.push(`${attack.name}: status ${response.status} ${text.slice(0, 120)}`);
        continue;
      }
      if (/\bat [\w.]+ \(|node_modules|SQLITE|select .* from/i.test(text))
        failures.push(`${attack.name}: leaks internals: ${text.slice(0, 120)}`);
      const type = response.headers.get('content-type') ?? '';
      if (attack.graphql && type.startsWith('application/json')) {
        const body = JSON.parse(text);
        if (typeof body.errors?.[0]?.extensions?.code !== 'string')
          failures.push(`${attack.name}: GraphQL error without extensions.code: ${text.slice(0, 120)}`);
      } else if (attack.oauth && type.startsWith('application/json')) {
        if (typeof JSON.parse(text).error !== 'string') failures.push(`${attack.name}: OAuth error without error: ${text.slice(0, 120)}`);
      } else if (!type.startsWith('application/problem+json')) {
        failures.push(`${attack.name}: ${response.status} as ${type}`);
      } else {
        const body = JSON.parse(text);
        for (const field of ['type', 'title', 'status', 'detail', 'code'])
          if (body[field] === undefined) failures.push(`${attack.name}: problem without ${field}`);
        if (body.status !== response.status) failures.push(`${attack.name}: problem status ${body.status} ≠ ${response.status}`);
      }
    }
    expect(failures).toEqual([]);
    expect((await fetch(`${scene.gateway.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${scene.gateway.url}/api/v1/tenders`, { headers: { authorization: `Bearer ${tokens.broker}` } })).status).toBe(
      200,
    );
    expect(await dataFingerprint()).toBe(before);
  }, 120_000);
});
