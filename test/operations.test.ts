import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Validator } from '@seriousme/openapi-schema-validator';
import express from 'express';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { loadConfig } from '../src/platform/config';
import { requestTimeout } from '../src/api/http/request-timeout';
import { openApiDocument } from '../src/api/rest/openapi/openapi-document';
import { createTender, createWorld } from './helpers/fixtures';
import { TEST_JWT_SECRET, getJson, graphql, json, startGateway, tokenFor, type Gateway } from './helpers/gateway';
import { awayFromWindowEdge } from './helpers/rate-limit-window';
import { startSimulatedInsurers, waitFor } from './helpers/simulator';

/** Log lines the gateway writes, captured as parsed JSON. */
const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
    done();
  },
});

let gateway: Gateway;
let broker: string;

beforeAll(async () => {
  gateway = await startGateway({
    logger: pino({ level: 'info' }, sink),
    env: { CORS_ORIGINS: 'https://ui.tender.example', RATE_LIMIT_PER_MINUTE: '1000' },
  });
  const world = await createWorld(gateway.em());
  await createTender(gateway.em(), world);
  broker = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
});

afterAll(() => gateway?.close());

describe('API contract', () => {
  it('the OpenAPI document is valid OpenAPI 3.1 and is served at /openapi.json', async () => {
    const result = await new Validator().validate(JSON.parse(JSON.stringify(openApiDocument)));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    const served = await getJson(gateway, '/openapi.json');
    expect(served.body).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
  });

  it('documents every REST path the gateway serves', () => {
    expect(Object.keys(openApiDocument.paths).sort()).toEqual(
      [
        '/aggregation-gateway/v1/public/producer-integration/quotes/available',
        '/api/v1/tenders',
        '/api/v1/tenders/closed',
        '/api/v1/tenders/open',
        '/api/v1/tenders/successful',
        '/api/v1/tenders/{id}',
        '/api/v1/tenders/{id}/access-log',
        '/api/v1/renewals',
        '/auth/token',
        '/auth/oauth/token',
        '/auth/token-revoke',
        '/auth/revoke',
        '/.well-known/oauth-authorization-server',
        '/public/v1/tenders',
        '/public/v1/tenders/closed',
        '/public/v1/tenders/open',
        '/public/v1/tenders/successful',
        '/public/v1/tenders/{id}',
        '/integration/v1/tenders/{id}/policy-documentation',
        ...['/public/v1', '/api/v1'].flatMap((prefix) => [
          `${prefix}/tenders/{id}/documents`,
          `${prefix}/tenders/{id}/documents/{documentId}/content`,
        ]),
        '/integration/v1/document-uploads/{token}',
        '/integration/v1/document-links/{token}',
        ...['/public/v1', '/api/v1'].flatMap((prefix) => [
          `${prefix}/question-sets`,
          `${prefix}/question-sets/{product}/{version}`,
          `${prefix}/tenders/{id}/risk-assessment`,
          `${prefix}/tenders/{id}/messages`,
          `${prefix}/tenders/{id}/subjectivities`,
        ]),
        '/integration/v1/subjectivities/{id}/decision',
        '/integration/v1/tenders/{id}/cover-order/decision',
        '/integration/v1/tenders/{id}/risk-assessment',
        '/mail/unsubscribe/{token}',
        ...['', '/{id}', '/{id}/rotate-secret', '/{id}/deliveries', '/{id}/replay'].map(
          (path) => `/integration/v1/webhook-endpoints${path}`,
        ),
      ].sort(),
    );
  });

  it('serves Swagger UI at /docs from the installed package, without a CDN', async () => {
    const page = await fetch(`${gateway.url}/docs`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).not.toMatch(/https?:\/\//);
    for (const asset of ['/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css', '/docs/init.js']) {
      expect(html).toContain(asset);
      expect((await fetch(`${gateway.url}${asset}`)).status, asset).toBe(200);
    }
    expect((await fetch(`${gateway.url}/docs/assets/nope.js`)).status).toBe(404);
  });
});

describe('operations', () => {
  it('one version: /healthz, the OpenAPI document and the GraphQL schema show the version of package.json', async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect((await getJson(gateway, '/healthz')).body.version).toBe(version);
    expect((await getJson(gateway, '/openapi.json')).body.info.version).toBe(version);
    const { body } = await graphql(gateway, await tokenFor(gateway, Role.INTERNAL), '{ __schema { description } }');
    expect(body.data.__schema.description).toBe(`Tender Exchange gateway ${version}`);
    expect(readFileSync('schema.graphql', 'utf8')).toContain(`Tender Exchange gateway ${version}`);
  });

  it('/healthz answers while the process is up, /readyz when the database is migrated and reachable', async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect((await getJson(gateway, '/healthz')).body).toEqual({ status: 'ok', version });
    expect((await getJson(gateway, '/readyz')).body).toEqual({ status: 'ready' });
    const other = await startGateway({ dispatch: false });
    await other.orm.close();
    const down = await getJson(other, '/readyz');
    expect(down.status).toBe(503);
    expect(down.body.code).toBe('SERVICE_UNAVAILABLE');
    await other.close();
  });

  it('/metrics exposes request counts and latencies by route and status, quote requests by state, dispatcher retries', async () => {
    await getJson(gateway, '/api/v1/tenders?limit=1', broker);
    await getJson(gateway, '/api/v1/tenders/does-not-exist', broker);
    const sims = await startSimulatedInsurers(gateway, [{ name: 'Flaky Insurance' }]);
    sims.simulator.queueBehaviours(sims.slugs[0], ['fail']);
    const tender = (await getJson(gateway, '/api/v1/tenders?limit=1', broker)).body.payload[0];
    const response = await fetch(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${broker}` },
      body: JSON.stringify({
        query: 'mutation($i: RequestQuotesInput!) { requestQuotes(input: $i) { id } }',
        variables: {
          i: {
            tenderId: tender._id,
            insurerIds: [sims.insurers[0].id],
            limits: [{ insuranceSum: 1000, deductible: 0 }],
            riskInformation: {},
          },
        },
      }),
    });
    expect(response.status).toBe(200);
    const text = await waitFor('the quote to be counted', async () => {
      const scraped = await (await fetch(`${gateway.url}/metrics`)).text();
      return /quote_requests\{state="QUOTED"\} 1/.test(scraped) && scraped;
    });
    await sims.close();
    expect(text).toMatch(/http_requests_total\{method="GET",route="\/api\/v1\/tenders",status="200"\} \d+/);
    expect(text).toMatch(/http_requests_total\{method="GET",route="\/api\/v1\/tenders\/:id",status="404"\} 1/);
    expect(text).toMatch(/http_request_duration_seconds_bucket\{le="0\.1",method="GET",route="\/api\/v1\/tenders",status="200"\} \d+/);
    expect(text).toMatch(/quote_requests\{state="QUOTED"\} 1/);
    expect(text).toMatch(/quote_dispatcher_retries_total 1/);
  });

  it("every response carries X-Request-Id (the caller's when sane), every request log line has it, credentials never appear", async () => {
    const given = await fetch(`${gateway.url}/api/v1/tenders?limit=1`, {
      headers: { authorization: `Bearer ${broker}`, 'x-request-id': 'trace-42' },
    });
    expect(given.headers.get('x-request-id')).toBe('trace-42');
    const insane = await fetch(`${gateway.url}/healthz`, { headers: { 'x-request-id': 'a b<script>' } });
    expect(insane.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    await fetch(`${gateway.url}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ app_id: 'x', secret: 'top-secret-value' }),
    });
    const requestLines = lines.filter((line) => line.req);
    expect(requestLines.length).toBeGreaterThan(3);
    for (const line of requestLines) expect((line.req as { id?: unknown }).id).toEqual(expect.any(String));
    expect(requestLines.find((line) => (line.req as { id: string }).id === 'trace-42')).toMatchObject({
      level: 30,
      req: { method: 'GET', url: '/api/v1/tenders?limit=1' },
      res: { statusCode: 200 },
      responseTime: expect.any(Number),
      msg: 'request completed',
    });
    // A refused request is logged at warn.
    expect(requestLines.filter((line) => (line.req as { url: string }).url === '/auth/token').at(-1)).toMatchObject({
      level: 40,
      res: { statusCode: 401 },
    });
    // A document's upload URL and download link are credentials in their path: logged without them.
    await fetch(`${gateway.url}/integration/v1/document-links/secret-link-token.123.sig?x=1`);
    await fetch(`${gateway.url}/integration/v1/document-uploads/secret-upload-token`, { method: 'PUT', body: 'x' });
    await fetch(`${gateway.url}/mail/unsubscribe/secret-unsubscribe-token`);
    expect(requestLines.length).toBeGreaterThan(0);
    const logged = lines.filter((line) => line.req).map((line) => (line.req as { url: string }).url);
    expect(logged).toContain('/integration/v1/document-links/<credential>?x=1');
    expect(logged).toContain('/integration/v1/document-uploads/<credential>');
    expect(logged).toContain('/mail/unsubscribe/<credential>');
    const everything = JSON.stringify(lines);
    expect(everything).not.toContain(broker);
    expect(everything).not.toContain('top-secret-value');
    expect(everything).not.toContain('secret-link-token');
    expect(everything).not.toContain('secret-upload-token');
    expect(everything).not.toContain('secret-unsubscribe-token');
  });
});

describe('HTTP hardening', () => {
  it('sets security headers', async () => {
    const response = await fetch(`${gateway.url}/api/v1/tenders`, { headers: { authorization: `Bearer ${broker}` } });
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('strict-transport-security')).toMatch(/max-age=/);
    expect(response.headers.get('x-powered-by')).toBeNull();
  });

  it('answers CORS for allow-listed origins only', async () => {
    const allowed = await fetch(`${gateway.url}/api/v1/tenders`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://ui.tender.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://ui.tender.example');
    const foreign = await fetch(`${gateway.url}/api/v1/tenders`, {
      headers: { origin: 'https://evil.example', authorization: `Bearer ${broker}` },
    });
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('limits requests per client with RateLimit headers, 429 and Retry-After', async () => {
    await awayFromWindowEdge(60_000);
    const limited = await startGateway({ env: { RATE_LIMIT_PER_MINUTE: '5' } });
    try {
      const token = await tokenFor(limited, Role.INTERNAL);
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 6; i++) {
        last = await fetch(`${limited.url}/api/v1/tenders`, { headers: { authorization: `Bearer ${token}` } });
        statuses.push(last.status);
      }
      // The IETF httpapi draft's current syntax (draft 8 on): a named policy, its remaining quota and reset.
      expect(last!.headers.get('ratelimit')).toMatch(/^"client"; r=0; t=\d+$/);
      expect(last!.headers.get('ratelimit-policy')).toMatch(/^"client"; q=5; w=60; pk=:[\w+/=-]+:$/);
      expect(statuses.slice(0, 4).every((s) => s === 200)).toBe(true);
      expect(statuses.at(-1)).toBe(429);
      expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await json(last!)).code).toBe('RATE_LIMITED');
      // Another client keeps its own budget.
      const other = await tokenFor(limited, Role.INTERNAL);
      expect((await fetch(`${limited.url}/api/v1/tenders`, { headers: { authorization: `Bearer ${other}` } })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('answers a request that takes too long with 503 instead of hanging', async () => {
    const config = loadConfig({ JWT_SECRET: TEST_JWT_SECRET, REQUEST_TIMEOUT_MS: '200' });
    const app = express();
    app.use(requestTimeout(config));
    app.get('/slow', (_req, res) => {
      setTimeout(() => (res.headersSent ? undefined : res.json({ late: true })), 2000);
    });
    const server = createServer(app).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const started = Date.now();
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`);
      expect(response.status).toBe(503);
      expect(response.headers.get('content-type')).toMatch(/problem\+json/);
      expect(Date.now() - started).toBeLessThan(1500);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
