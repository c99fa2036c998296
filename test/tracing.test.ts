import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { openDatabase } from '../src/database';
import { loadConfig } from '../src/platform/config';
import { partiesChanged, type Tender } from '../src/tenders';
import { databaseUrlFor, removeDataDir } from './helpers/database';
import { PDF, addDocument } from './helpers/documents';
import { createTender, createWorld, type World } from './helpers/fixtures';
import { TEST_JWT_SECRET, createClient, requestToken, type Gateway } from './helpers/gateway';
import { freePort, spawnGateway, type GatewayProcess } from './helpers/gateway-process';
import { startSimulatedInsurers, waitFor, type SimulatedInsurers } from './helpers/simulator';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver';

/** A span as OTLP/HTTP JSON carries it (ids in hex). */
interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number; boolValue?: boolean } }[];
  links?: { traceId: string; spanId: string }[];
}

const SERVER = 2;
const CLIENT = 3;
/** db.system.name of the engine under test (OpenTelemetry's well-known values). */
const ENGINE = process.env.DATABASE_URL?.startsWith('postgres') ? 'postgresql' : 'sqlite';

/** A collector's OTLP/HTTP traces endpoint on loopback: keeps every span posted to /v1/traces, with the service name. */
async function startOtlpReceiver() {
  const spans: (ReceivedSpan & { service: string })[] = [];
  const paths: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      paths.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: {
          resource: { attributes: ReceivedSpan['attributes'] };
          scopeSpans: { spans: ReceivedSpan[] }[];
        }[];
      };
      for (const { resource, scopeSpans } of body.resourceSpans) {
        const service = resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
        for (const scope of scopeSpans) for (const span of scope.spans) spans.push({ ...span, service });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    paths,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const attribute = (span: ReceivedSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? value?.intValue ?? value?.boolValue;
};

/** Whether `span` descends from `ancestor` among `spans` (one trace). */
function descendsFrom(span: ReceivedSpan, ancestor: ReceivedSpan, spans: ReceivedSpan[]): boolean {
  for (let parent = span.parentSpanId; parent; parent = spans.find((s) => s.spanId === parent)?.parentSpanId) {
    if (parent === ancestor.spanId) return true;
  }
  return false;
}

const traceparentOf = (traceId: string, spanId: string) => `00-${traceId}-${spanId}-01`;

let dataDir: string;
let orm: MikroORM;
let tender: Tender;
let sims: SimulatedInsurers;
let receiver: WebhookReceiver;
let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
let gateway: GatewayProcess;
let broker: string;
let world: World;
let target: Gateway;

/** The spans of one trace, once its server span (which ends last, after the answer) has arrived. */
const spansOf = (traceId: string) =>
  waitFor('the spans of the request', async () => {
    const spans = otlp.spans.filter((span) => span.traceId === traceId);
    return spans.some((span) => span.kind === SERVER) && spans;
  });

/** The broker reads its tender over REST in a trace of its own: that trace's spans. */
async function tracedTenderRead() {
  // A new revision of what every audience sees: the read runs, rather than being answered from the one before it kept.
  await partiesChanged(orm.em.fork());
  const traceId = randomBytes(16).toString('hex');
  const response = await fetch(`${gateway.url}/api/v1/tenders/${tender.id}`, {
    headers: { authorization: `Bearer ${broker}`, traceparent: traceparentOf(traceId, randomBytes(8).toString('hex')) },
  });
  expect(response.status).toBe(200);
  return spansOf(traceId);
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tender-exchange-tracing-'));
  const port = await freePort();
  orm = await openDatabase(loadConfig({ DATA_DIR: dataDir, DATABASE_URL: await databaseUrlFor(dataDir), JWT_SECRET: TEST_JWT_SECRET }));
  world = await createWorld(orm.em.fork());
  tender = await createTender(orm.em.fork(), world);
  // The gateway as the test process sees it: its address, and the same database.
  target = { url: `http://127.0.0.1:${port}`, em: () => orm.em.fork() } as unknown as Gateway;
  sims = await startSimulatedInsurers(target, [{ name: 'Anchor Insurance' }]);
  receiver = await startWebhookReceiver();
  otlp = await startOtlpReceiver();
  gateway = await spawnGateway(dataDir, port, {
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'gateway-under-test',
    OTEL_BSP_SCHEDULE_DELAY: '50',
    // Request lines are info: the test reads their trace ids.
    LOG_LEVEL: 'info',
    WEBHOOK_URL_ALLOW: '127.0.0.1',
    WEBHOOK_POLL_INTERVAL_MS: '20',
  });
  broker = await requestToken(target, await createClient(target, Role.BROKER, { brokerCompanyId: world.brokers[0].id }));
}, 150_000);

afterAll(async () => {
  if (gateway?.alive()) await gateway.kill();
  await sims?.close();
  await receiver?.close();
  await otlp?.close();
  await orm?.close();
  await removeDataDir(dataDir);
});

describe('OpenTelemetry traces, exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set', () => {
  it("continues a REST request's incoming traceparent: one trace from the route through GraphQL to its SQL", async () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    const response = await fetch(`${gateway.url}/api/v1/tenders/${tender.id}`, {
      headers: { authorization: `Bearer ${broker}`, traceparent: traceparentOf(traceId, callerSpan) },
    });
    expect(response.status).toBe(200);

    const trace = await spansOf(traceId);
    expect(otlp.paths.every((path) => /^POST \/v1\/traces application\/json/.test(path))).toBe(true);
    expect(new Set(trace.map((span) => span.service))).toEqual(new Set(['gateway-under-test']));
    // The route's server span is the caller's span's child.
    const route = trace.find((span) => span.kind === SERVER)!;
    expect(route).toMatchObject({ parentSpanId: callerSpan, name: 'GET /api/v1/tenders/:id' });
    const graphql = trace.find((span) => span.name === 'query RestTender')!;
    expect(attribute(graphql, 'graphql.operation.name')).toBe('RestTender');
    expect(descendsFrom(graphql, route, trace)).toBe(true);
    const sql = trace.filter((span) => attribute(span, 'db.query.text') !== undefined);
    // The tender's read, the resolver's, is the GraphQL span's child (its text is cut after 1 KiB).
    const read = sql.filter((span) => descendsFrom(span, graphql, trace)).map((span) => String(attribute(span, 'db.query.text')));
    expect(read.some((text) => /^select t\.id as "t_id"/.test(text))).toBe(true);
    expect(new Set(sql.map((span) => attribute(span, 'db.system.name')))).toEqual(new Set([ENGINE]));
  });

  it('names SQL spans by the stable database conventions: operation and table, no file path, no values in the text', async () => {
    const trace = await tracedTenderRead();
    const sql = trace.filter((span) => attribute(span, 'db.system.name') !== undefined);
    expect(sql.length).toBeGreaterThan(0);
    for (const span of sql) {
      const operation = String(attribute(span, 'db.operation.name'));
      const table = attribute(span, 'db.collection.name');
      // {db.operation.name} {target}, the target being the table where the statement names one.
      expect(span.name).toBe(table === undefined ? operation : `${operation} ${String(table)}`);
      expect(operation).toMatch(/^(SELECT|INSERT|UPDATE|DELETE)$/);
      expect(attribute(span, 'db.system.name')).toBe(ENGINE);
      expect(span.kind).toBe(CLIENT);
    }
    // The tender's own read names its table; the id it looked for is nowhere in the SQL spans, nor the database file.
    const tenderRead = sql.find((span) => /^select t\.id as "t_id"/.test(String(attribute(span, 'db.query.text'))))!;
    expect(tenderRead.name).toBe('SELECT tender');
    expect(attribute(tenderRead, 'db.collection.name')).toBe('tender');
    // No string literal in any statement's text (the read's is cut after 1 KiB, before its where clause).
    for (const span of sql) expect(String(attribute(span, 'db.query.text'))).not.toContain("'");
    expect(JSON.stringify(sql)).not.toContain(tender.id);
    expect(JSON.stringify(trace)).not.toContain(dataDir);
  });

  it("has no span for a router that did not handle the request: the Express spans are the matched route's", async () => {
    const trace = await tracedTenderRead();
    const express = trace.filter((span) => attribute(span, 'express.type') !== undefined);
    expect(express.map((span) => [span.name, attribute(span, 'express.type')])).toEqual([
      ['request handler - /api/v1/tenders/:id', 'request_handler'],
    ]);
  });

  it('writes the trace_id and span_id of the request on its log line', async () => {
    const traceId = randomBytes(16).toString('hex');
    const requestId = `logged-${randomBytes(4).toString('hex')}`;
    const response = await fetch(`${gateway.url}/api/v1/tenders/${tender.id}`, {
      headers: {
        authorization: `Bearer ${broker}`,
        traceparent: traceparentOf(traceId, randomBytes(8).toString('hex')),
        'x-request-id': requestId,
      },
    });
    expect(response.status).toBe(200);
    const line = await waitFor('the request line', async () =>
      gateway
        .stdout()
        .split('\n')
        .filter((text) => text.includes(requestId))
        .map((text) => JSON.parse(text) as { trace_id?: string; span_id?: string; req?: { id: string } })
        .find((entry) => entry.req?.id === requestId),
    );
    expect(line.trace_id).toBe(traceId);
    const server = await waitFor('the server span', async () =>
      otlp.spans.find((span) => span.traceId === traceId && span.kind === SERVER),
    );
    expect(line.span_id).toBe(server.spanId);
  });

  it('downloads documents from the filesystem store without a MaxListenersExceededWarning', async () => {
    const open = await createTender(orm.em.fork(), world);
    // Big enough that the answer waits for the socket to drain, many times.
    const bytes = Buffer.concat([PDF, Buffer.alloc(4 * 1024 * 1024, 0x20)]);
    const documentId = await addDocument(target, broker, { tenderId: open.id, kind: 'RISK' }, bytes);
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${gateway.url}/api/v1/tenders/${open.id}/documents/${documentId}/content`, {
        headers: { authorization: `Bearer ${broker}` },
      });
      expect(response.status).toBe(200);
      expect((await response.arrayBuffer()).byteLength).toBe(bytes.length);
    }
    expect(gateway.stderr(), gateway.stderr()).not.toContain('MaxListenersExceededWarning');
  });

  it("keeps a download link's credential out of its spans, as the logs do", async () => {
    const traceId = randomBytes(16).toString('hex');
    const response = await fetch(`${gateway.url}/integration/v1/document-links/secret-link-credential-42`, {
      headers: { traceparent: traceparentOf(traceId, randomBytes(8).toString('hex')) },
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    const trace = await spansOf(traceId);
    expect(
      attribute(
        trace.find((span) => span.kind === SERVER)!,
        'url.path',
      ),
    ).toBe('/integration/v1/document-links/<credential>');
    expect(JSON.stringify(trace)).not.toContain('secret-link-credential-42');
  });

  it('sends traceparent to the insurer system, from a dispatch span linked to the request that queued the quote request', async () => {
    const traceId = randomBytes(16).toString('hex');
    const response = await fetch(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${broker}`,
        traceparent: traceparentOf(traceId, randomBytes(8).toString('hex')),
      },
      body: JSON.stringify({
        query: 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }',
        variables: {
          input: {
            tenderId: tender.id,
            insurerIds: [sims.insurers[0].id],
            limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }],
            riskInformation: {},
          },
        },
      }),
    });
    expect(((await response.json()) as { errors?: unknown }).errors).toBeUndefined();

    const sent = await waitFor('the quotation request at the insurer', async () =>
      sims.received.find((request) => request.method === 'POST' && request.path.endsWith('/quotes')),
    );
    const traceparent = String(sent.headers.traceparent);
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const [, sentTrace, sentSpan] = traceparent.split('-');

    const requestSpans = await waitFor('the mutation', async () => {
      const spans = otlp.spans.filter((span) => span.traceId === traceId);
      return spans.some((span) => span.kind === SERVER) && spans;
    });
    const dispatch = await waitFor('the dispatch span', async () =>
      otlp.spans.find((span) => span.name === 'quote_request dispatch' && span.traceId === sentTrace),
    );
    // Its own trace, linked to a span of the request's trace; the call carrying the header is its child.
    expect(sentTrace).not.toBe(traceId);
    expect(dispatch.links).toHaveLength(1);
    expect(dispatch.links![0].traceId).toBe(traceId);
    expect(requestSpans.map((span) => span.spanId)).toContain(dispatch.links![0].spanId);
    const call = await waitFor('the call span', async () => otlp.spans.find((span) => span.spanId === sentSpan));
    expect(call).toMatchObject({ kind: CLIENT, parentSpanId: dispatch.spanId });
  });

  it('sends traceparent with every webhook delivery, from a delivery span', async () => {
    const registered = await fetch(`${gateway.url}/integration/v1/webhook-endpoints`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${broker}` },
      body: JSON.stringify({ url: receiver.url('/hooks'), event_types: ['tender.status_changed'] }),
    });
    expect(registered.status).toBe(201);
    const closed = await fetch(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${broker}` },
      body: JSON.stringify({
        query: 'mutation($t: ID!) { closeTender(tenderId: $t, reason: "done") { status } }',
        variables: { t: tender.id },
      }),
    });
    expect(((await closed.json()) as { errors?: unknown }).errors).toBeUndefined();

    const [delivery] = await waitFor('the webhook', async () => receiver.received('/hooks').length > 0 && receiver.received('/hooks'));
    const traceparent = String(delivery.headers.traceparent);
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const [, sentTrace, sentSpan] = traceparent.split('-');
    const span = await waitFor('the delivery span', async () =>
      otlp.spans.find((s) => s.name === 'webhook delivery' && s.traceId === sentTrace),
    );
    expect(attribute(span, 'webhook_delivery.id')).toBe(delivery.headers['webhook-id']);
    const call = await waitFor('the call span', async () => otlp.spans.find((s) => s.spanId === sentSpan));
    expect(call).toMatchObject({ kind: CLIENT, parentSpanId: span.spanId });
  });
});

describe('tracing off', () => {
  it('loads no OpenTelemetry SDK without an OTLP endpoint (and with OTEL_SDK_DISABLED=true), only with one', () => {
    // How many of the SDK's modules src/telemetry.ts (main.ts's first import) loads, in a process of its own.
    const sdkModulesLoaded = (env: Record<string, string>) => {
      const script =
        "require('./src/telemetry'); console.log(Object.keys(require.cache).filter((f) => f.includes('@opentelemetry/sdk-')).length)";
      const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')));
      return Number(
        execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { env: { ...clean, ...env }, encoding: 'utf8' }).trim(),
      );
    };
    expect(sdkModulesLoaded({})).toBe(0);
    expect(sdkModulesLoaded({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_SDK_DISABLED: 'true' })).toBe(0);
    expect(sdkModulesLoaded({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' })).toBeGreaterThan(0);
  }, 60_000);
});
