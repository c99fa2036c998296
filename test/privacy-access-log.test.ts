import type { AbstractSqlConnection } from '@mikro-orm/knex';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { TenderHistoryEntry, TenderStatus, type Tender } from '../src/tenders';
import { AccessLogBuffer, sweepAccessLog } from '../src/privacy';
import { AccessSurface } from '../src/access';
import { createTender, createWorld, receivedQuote } from './helpers/fixtures';
import { addDocument } from './helpers/documents';
import { cyberAnswers, cyberQuestionSet } from './helpers/question-sets';
import { getJson, graphql, startGateway, tokenFor } from './helpers/gateway';
import { withGateway } from './helpers/scene';
import { startWebhookReceiver } from './helpers/webhook-receiver';

/** Reads are written in batches: a short flush interval, and a look until the batch is there. */
const FLUSH_ENV = { ACCESS_LOG_FLUSH_MS: '20' };

let closed: Tender;
const tokens = {} as Record<'broker' | 'otherBroker' | 'insurer' | 'internal' | 'analyst', string>;

const scene = withGateway({ per: 'file', env: FLUSH_ENV, dispatch: false, tender: (world) => ({ invited: [world.insurers[0]] }) });

beforeAll(async () => {
  const em = scene.gateway.em();
  closed = await createTender(em, scene.world, { status: TenderStatus.CLOSED, invited: [scene.world.insurers[0]] });
  tokens.broker = await scene.token(Role.BROKER);
  tokens.otherBroker = await scene.token(Role.BROKER, 1);
  tokens.insurer = await scene.token(Role.INSURER);
  tokens.internal = await scene.token(Role.INTERNAL);
  tokens.analyst = await scene.token(Role.ANALYST);
});
interface RestEntry {
  at: string;
  app_id: string;
  role: string;
  party: { _id: string; name: string | null };
  surface: string;
  operation: string;
  count: number;
}

const accessLogOf = async (tenderId: string, token = tokens.internal): Promise<RestEntry[]> => {
  const { status, body } = await getJson(scene.gateway, `/api/v1/tenders/${tenderId}/access-log?limit=200`, token);
  expect(status, JSON.stringify(body)).toBe(200);
  return body.payload as RestEntry[];
};

/** The entries of one client on one operation, once the batch holding `reads` of them is written. */
async function entriesOnceWritten(tenderId: string, operation: string, reads: number): Promise<RestEntry[]> {
  let entries: RestEntry[] = [];
  await expect
    .poll(async () => {
      entries = (await accessLogOf(tenderId)).filter((entry) => entry.operation === operation);
      return entries.reduce((sum, entry) => sum + entry.count, 0);
    })
    .toBe(reads);
  return entries;
}

/** Waits out the last seconds of a minute, so reads meant to fall into one minute do. */
async function startOfAMinute(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 5000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

const appIdOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sub as string;

describe('who read the customer data (the access log)', () => {
  it("records a broker's REST read of its tender, which the broker then sees in the tender's access log", async () => {
    const fresh = await createTender(scene.gateway.em(), scene.world);
    expect((await getJson(scene.gateway, `/api/v1/tenders/${fresh.id}`, tokens.broker)).status).toBe(200);
    const [entry] = await entriesOnceWritten(fresh.id, 'GET /api/v1/tenders/:id', 1);
    expect(entry).toMatchObject({
      app_id: appIdOf(tokens.broker),
      role: 'broker',
      party: { _id: scene.world.brokers[0].id, name: 'First Brokers' },
      surface: 'REST',
      count: 1,
    });
    const { status, body } = await getJson(scene.gateway, `/api/v1/tenders/${fresh.id}/access-log`, tokens.broker);
    expect(status).toBe(200);
    expect(body.metadata).toEqual({ count: '1', skip: '0', limit: '50', sort: {} });
    expect(body.payload).toEqual([entry]);
  });

  it('records a GraphQL read as GRAPHQL with the field it was read by', async () => {
    const fresh = await createTender(scene.gateway.em(), scene.world);
    const read = await graphql(scene.gateway, tokens.broker, 'query($id: ID!) { tender(id: $id) { customer { name } } }', { id: fresh.id });
    expect(read.body.errors).toBeUndefined();
    const [entry] = await entriesOnceWritten(fresh.id, 'tender', 1);
    expect(entry).toMatchObject({ surface: 'GRAPHQL', role: 'broker', app_id: appIdOf(tokens.broker) });
    const log = await graphql(
      scene.gateway,
      tokens.broker,
      'query($id: ID!) { tenderAccessLog(tenderId: $id) { count items { surface operation count party { id name } } } }',
      { id: fresh.id },
    );
    expect(log.body.data.tenderAccessLog).toEqual({
      count: 1,
      items: [{ surface: 'GRAPHQL', operation: 'tender', count: 1, party: { id: scene.world.brokers[0].id, name: 'First Brokers' } }],
    });
  });

  it("records an insurer's read of a tender it sees in full, with the insurer as the party", async () => {
    expect((await getJson(scene.gateway, `/public/v1/tenders/${scene.tender.id}`, tokens.insurer)).status).toBe(200);
    const [entry] = await entriesOnceWritten(scene.tender.id, 'GET /public/v1/tenders/:id', 1);
    expect(entry).toMatchObject({ role: 'insurer', surface: 'REST', party: { _id: scene.world.insurers[0].id, name: 'Alpha Insurance' } });
  });

  it('records nothing when an insurer reads a CLOSED tender: the redacted tender carries no personal data', async () => {
    const read = await getJson(scene.gateway, `/public/v1/tenders/${closed.id}`, tokens.insurer);
    expect(read.status).toBe(200);
    expect(read.body.customer).toBeNull();
    await graphql(scene.gateway, tokens.insurer, '{ tenders { items { id } } }');
    // A marker read after them: once it is written, any record of the insurer's reads would be too.
    await getJson(scene.gateway, `/api/v1/tenders/${closed.id}`, tokens.broker);
    await entriesOnceWritten(closed.id, 'GET /api/v1/tenders/:id', 1);
    expect((await accessLogOf(closed.id)).filter((entry) => entry.role === 'insurer')).toEqual([]);
  });

  it("does not record the company's own reads (internal users and analysts)", async () => {
    const fresh = await createTender(scene.gateway.em(), scene.world);
    await getJson(scene.gateway, `/api/v1/tenders/${fresh.id}`, tokens.internal);
    await graphql(scene.gateway, tokens.analyst, 'query($id: ID!) { tender(id: $id) { customer { name } } }', { id: fresh.id });
    await getJson(scene.gateway, `/api/v1/tenders/${fresh.id}`, tokens.broker);
    const entries = await entriesOnceWritten(fresh.id, 'GET /api/v1/tenders/:id', 1);
    expect(entries.map((entry) => entry.role)).toEqual(['broker']);
    expect(await accessLogOf(fresh.id)).toHaveLength(1);
  });

  it('counts repeated reads of one tender by one client within a minute in one entry', async () => {
    const fresh = await createTender(scene.gateway.em(), scene.world);
    await startOfAMinute();
    for (let read = 0; read < 3; read++)
      expect((await getJson(scene.gateway, `/api/v1/tenders/${fresh.id}`, tokens.broker)).status).toBe(200);
    // Across batches too: a later batch of the minute adds to the row written before.
    await entriesOnceWritten(fresh.id, 'GET /api/v1/tenders/:id', 3);
    await getJson(scene.gateway, `/api/v1/tenders/${fresh.id}`, tokens.broker);
    const entries = await entriesOnceWritten(fresh.id, 'GET /api/v1/tenders/:id', 4);
    expect(entries).toHaveLength(1);
    expect(entries[0].count).toBe(4);
  });

  it('a read recorded while the batch before it is being written adds to the same entry, not a second one', async () => {
    const fresh = await createTender(scene.gateway.em(), scene.world);
    await startOfAMinute();
    // A buffer of its own, flushed only when told.
    const buffer = new AccessLogBuffer(scene.gateway.orm, 60_000, pino({ level: 'silent' }));
    const viewer = {
      appId: 'race-client',
      role: Role.BROKER,
      brokerCompanyId: scene.world.brokers[0].id,
      jti: 'j',
      expiresAt: new Date(),
      tokenGeneration: 0,
    };
    const channel = { surface: AccessSurface.REST, operation: 'GET /api/v1/tenders/:id' };
    buffer.record(fresh.id, viewer, channel);
    // The moment the batch's statement goes to the database, the same client reads again.
    const knex = (scene.gateway.orm.em.getConnection() as AbstractSqlConnection).getKnex();
    knex.once('query', () => buffer.record(fresh.id, viewer, channel));
    await buffer.flush();
    await buffer.stop();
    const entries = (await accessLogOf(fresh.id)).filter((entry) => entry.app_id === 'race-client');
    expect(entries.map((entry) => entry.count)).toEqual([2]);
  });

  it('writes every read of a flush larger than one statement takes, each tender once, across its batches', async () => {
    await startOfAMinute();
    const buffer = new AccessLogBuffer(scene.gateway.orm, 60_000, pino({ level: 'silent' }));
    const viewer = {
      appId: 'many-tenders-client',
      role: Role.INTERNAL,
      jti: 'j',
      expiresAt: new Date(),
      tokenGeneration: 0,
    };
    const channel = { surface: AccessSurface.REST, operation: 'GET /api/v1/tenders' };
    const tenderIds = Array.from({ length: 250 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    for (const tenderId of tenderIds) buffer.record(tenderId, viewer, channel);
    for (const tenderId of tenderIds.slice(0, 10)) buffer.record(tenderId, viewer, channel);
    await buffer.stop();
    const rows = (await scene.gateway
      .em()
      .getConnection()
      .execute(`select tender_id, count from access_log_entry where app_id = 'many-tenders-client'`)) as {
      tender_id: string;
      count: number;
    }[];
    expect(rows.map((row) => row.tender_id).sort()).toEqual(tenderIds);
    expect(rows.reduce((sum, row) => sum + Number(row.count), 0)).toBe(260);
  });

  it('misses no read of a list under concurrent load: every tender of every page is counted', async () => {
    const reads = 20;
    await startOfAMinute();
    await Promise.all(
      Array.from({ length: reads }, () =>
        getJson(scene.gateway, '/api/v1/tenders?limit=200', tokens.otherBroker).then((r) => expect(r.status).toBe(200)),
      ),
    );
    const other = await createTender(scene.gateway.em(), scene.world, { broker: 1 });
    // The tender created after the reads is not among them; one created before is on each page.
    expect(await accessLogOf(other.id)).toEqual([]);
    const seen = await createTender(scene.gateway.em(), scene.world, { broker: 1 });
    await Promise.all(Array.from({ length: reads }, () => getJson(scene.gateway, '/api/v1/tenders?limit=200', tokens.otherBroker)));
    const entries = await entriesOnceWritten(seen.id, 'GET /api/v1/tenders', reads);
    expect(entries.every((entry) => entry.party._id === scene.world.brokers[1].id)).toBe(true);
  });

  it("records the download of a document's content as DOCUMENT", async () => {
    const fresh = await createTender(scene.gateway.em(), scene.world);
    const documentId = await addDocument(scene.gateway, tokens.broker, { tenderId: fresh.id, kind: 'RISK' });
    const response = await fetch(`${scene.gateway.url}/api/v1/tenders/${fresh.id}/documents/${documentId}/content`, {
      headers: { authorization: `Bearer ${tokens.broker}` },
    });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    const [entry] = await entriesOnceWritten(fresh.id, 'GET /api/v1/tenders/:id/documents/:documentId/content', 1);
    expect(entry).toMatchObject({ surface: 'DOCUMENT', role: 'broker' });
  });

  it('is never shown to insurers (404), nor to another broker (404), nor to analysts (403)', async () => {
    const insurer = await getJson(scene.gateway, `/api/v1/tenders/${scene.tender.id}/access-log`, tokens.insurer);
    expect(insurer.status).toBe(404);
    const insurerGraphql = await graphql(scene.gateway, tokens.insurer, `{ tenderAccessLog(tenderId: "${scene.tender.id}") { count } }`);
    expect(insurerGraphql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await getJson(scene.gateway, `/api/v1/tenders/${scene.tender.id}/access-log`, tokens.otherBroker)).status).toBe(404);
    const analyst = await graphql(scene.gateway, tokens.analyst, `{ tenderAccessLog(tenderId: "${scene.tender.id}") { count } }`);
    expect(analyst.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('cannot be written or deleted through the API: the route only reads', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const response = await fetch(`${scene.gateway.url}/api/v1/tenders/${scene.tender.id}/access-log`, {
        method,
        headers: { authorization: `Bearer ${tokens.internal}` },
      });
      expect(response.status, method).toBe(405);
    }
  });

  it('refuses bad paging with a 400 naming the parameter', async () => {
    const { status, body } = await getJson(scene.gateway, `/api/v1/tenders/${scene.tender.id}/access-log?limit=0&sort=at`, tokens.broker);
    expect(status).toBe(400);
    expect(body.errors.map((error: { parameter: string }) => error.parameter).sort()).toEqual(['limit', 'sort']);
  });

  it("lets internal users read every client's reads, filtered by client and time", async () => {
    const fresh = await createTender(scene.gateway.em(), scene.world, { broker: 1 });
    await getJson(scene.gateway, `/api/v1/tenders/${fresh.id}`, tokens.otherBroker);
    await entriesOnceWritten(fresh.id, 'GET /api/v1/tenders/:id', 1);
    const query = 'query($filter: AccessLogFilter) { accessLog(filter: $filter) { count items { tenderId appId role } } }';
    const mine = await graphql(scene.gateway, tokens.internal, query, { filter: { clientId: appIdOf(tokens.otherBroker) } });
    expect(mine.body.data.accessLog.items.length).toBeGreaterThan(0);
    expect(mine.body.data.accessLog.items.every((item: { appId: string }) => item.appId === appIdOf(tokens.otherBroker))).toBe(true);
    const future = await graphql(scene.gateway, tokens.internal, query, {
      filter: { from: new Date(Date.now() + 3_600_000).toISOString() },
    });
    expect(future.body.data.accessLog).toEqual({ count: 0, items: [] });
    const broker = await graphql(scene.gateway, tokens.broker, query, {});
    expect(broker.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('keeps records for ACCESS_LOG_RETENTION and no longer: the sweep removes older ones', async () => {
    const fresh = await createTender(scene.gateway.em(), scene.world);
    await getJson(scene.gateway, `/api/v1/tenders/${fresh.id}`, tokens.broker);
    await entriesOnceWritten(fresh.id, 'GET /api/v1/tenders/:id', 1);
    const retention = scene.gateway.config.accessLog.retentionMs;
    expect(retention).toBe(400 * 86_400_000);
    await sweepAccessLog(scene.gateway.em(), retention, new Date(Date.now() + retention - 60_000));
    expect(await accessLogOf(fresh.id)).toHaveLength(1);
    await sweepAccessLog(scene.gateway.em(), retention, new Date(Date.now() + retention + 120_000));
    expect(await accessLogOf(fresh.id)).toEqual([]);
  });
});

describe('the access log across a graceful shutdown', () => {
  it('writes the reads still buffered when the gateway stops', async () => {
    // A flush interval longer than the test: only the stop writes the read.
    const first = await startGateway({ env: { ACCESS_LOG_FLUSH_MS: '60000' }, dispatch: false });
    const em = first.em();
    const small = await createWorld(em);
    const fresh = await createTender(em, small);
    const broker = await tokenFor(first, Role.BROKER, { brokerCompanyId: small.brokers[0].id });
    expect((await getJson(first, `/api/v1/tenders/${fresh.id}`, broker)).status).toBe(200);
    await first.stop();
    const again = await startGateway({ dataDir: first.dataDir, dispatch: false });
    try {
      const internal = await tokenFor(again, Role.INTERNAL);
      const { body } = await getJson(again, `/api/v1/tenders/${fresh.id}/access-log`, internal);
      expect(body.payload).toMatchObject([{ role: 'broker', surface: 'REST', count: 1 }]);
    } finally {
      await again.close();
    }
  });

  it('records nothing with ACCESS_LOG=off', async () => {
    const off = await startGateway({ env: { ACCESS_LOG: 'off', ACCESS_LOG_FLUSH_MS: '10' }, dispatch: false });
    try {
      const small = await createWorld(off.em());
      const fresh = await createTender(off.em(), small);
      const broker = await tokenFor(off, Role.BROKER, { brokerCompanyId: small.brokers[0].id });
      await getJson(off, `/api/v1/tenders/${fresh.id}`, broker);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const internal = await tokenFor(off, Role.INTERNAL);
      expect((await getJson(off, `/api/v1/tenders/${fresh.id}/access-log`, internal)).body.payload).toEqual([]);
    } finally {
      await off.close();
    }
  });
});

describe('customer data export', () => {
  it("gives internal users everything held about a customer: tenders, history, quote requests with risk information, documents' metadata and the access log", async () => {
    const em = scene.gateway.em();
    const exported = await createTender(em, scene.world);
    em.create(TenderHistoryEntry, {
      tender: exported,
      at: new Date(),
      actor: 'ui',
      actorRole: Role.INTERNAL,
      toStatus: TenderStatus.QUOTES_AVAILABLE,
    });
    const option = await receivedQuote(em, exported, scene.world.insurers[1], 1234);
    option.quoteRequest.riskInformation = { turnover: { amount: 5_000_000, currency: 'EUR' }, customer_name: 'Acme GmbH' };
    await em.flush();
    const documentId = await addDocument(scene.gateway, tokens.broker, { tenderId: exported.id, kind: 'RISK', filename: 'risk.pdf' });
    await getJson(scene.gateway, `/api/v1/tenders/${exported.id}`, tokens.broker);
    await entriesOnceWritten(exported.id, 'GET /api/v1/tenders/:id', 1);

    const { body } = await graphql(scene.gateway, tokens.internal, 'query($id: ID!) { customerDataExport(customerId: $id) }', {
      id: scene.world.customer.id,
    });
    expect(body.errors).toBeUndefined();
    const document = body.data.customerDataExport;
    expect(document.customer).toMatchObject({ _id: scene.world.customer.id, name: 'Acme GmbH', company_id: 'CUS-1' });
    expect(document.next_skip).toBeNull();
    expect(document.tenders_total).toBe(document.tenders.length);
    const part = document.tenders.find((candidate: { _id: string }) => candidate._id === exported.id);
    expect(part.person_in_charge).toMatchObject({ email: 'person0@broker.example', last_name: 'Muster0' });
    expect(part.history).toMatchObject([{ actor: 'ui', to_status: 'QUOTES_AVAILABLE' }]);
    expect(part.quote_requests).toMatchObject([
      {
        insurer: { name: 'Beta Insurance' },
        risk_information: { customer_name: 'Acme GmbH', turnover: { amount: 5_000_000, currency: 'EUR' } },
        quote_options: [{ premium: 1234 }],
      },
    ]);
    expect(part.documents).toMatchObject([{ _id: documentId, kind: 'RISK', filename: 'risk.pdf' }]);
    expect(part.access_log).toMatchObject([{ role: 'broker', surface: 'REST', operation: 'GET /api/v1/tenders/:id', count: 1 }]);
  });

  it('is for internal users only: a broker is refused, an unknown customer is NOT_FOUND', async () => {
    const query = 'query($id: ID!) { customerDataExport(customerId: $id) }';
    const broker = await graphql(scene.gateway, tokens.broker, query, { id: scene.world.customer.id });
    expect(broker.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const unknown = await graphql(scene.gateway, tokens.internal, query, { id: 'no-such-customer' });
    expect(unknown.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

describe('the access log beyond tender reads', () => {
  it("records a mutation's answer that carries the tender, and an insurer's read of its quote request's risk information", async () => {
    const fresh = await createTender(scene.gateway.em(), scene.world, { broker: 1 });
    const close = await graphql(
      scene.gateway,
      tokens.otherBroker,
      'mutation($id: ID!) { closeTender(tenderId: $id, reason: "done") { customer { name } } }',
      {
        id: fresh.id,
      },
    );
    expect(close.body.errors).toBeUndefined();
    await entriesOnceWritten(fresh.id, 'closeTender', 1);

    const quoted = await createTender(scene.gateway.em(), scene.world, { broker: 1 });
    await receivedQuote(scene.gateway.em(), quoted, scene.world.insurers[2]);
    const insurer = await tokenFor(scene.gateway, Role.INSURER, { insurerId: scene.world.insurers[2].id });
    const risk = await graphql(scene.gateway, insurer, 'query($id: ID!) { quoteRequests(tenderId: $id) { riskInformation } }', {
      id: quoted.id,
    });
    expect(risk.body.errors).toBeUndefined();
    const [entry] = await entriesOnceWritten(quoted.id, 'QuoteRequest.riskInformation', 1);
    expect(entry).toMatchObject({
      role: 'insurer',
      surface: 'GRAPHQL',
      party: { _id: scene.world.insurers[2].id, name: 'Gamma Insurance' },
    });
  });
});

describe('the access log of risk answers', () => {
  it("records a broker's GraphQL read of the tender's risk assessment, apart from the save that wrote it", async () => {
    const product = 'Cyber Access Log';
    const published = await graphql(
      scene.gateway,
      tokens.internal,
      'mutation($input: PublishQuestionSetInput!) { publishQuestionSet(input: $input) { questionSet { version } } }',
      { input: { product, lineOfBusinessId: scene.world.lines.cyber.id, schema: cyberQuestionSet() } },
    );
    expect(published.body.errors).toBeUndefined();
    const fresh = await createTender(scene.gateway.em(), scene.world, { broker: 1, product });
    const saved = await graphql(
      scene.gateway,
      tokens.otherBroker,
      'mutation($id: ID!, $answers: JSONObject!) { saveRiskAnswers(tenderId: $id, answers: $answers, expectedVersion: 0) { version } }',
      { id: fresh.id, answers: cyberAnswers() },
    );
    expect(saved.body.errors).toBeUndefined();
    await entriesOnceWritten(fresh.id, 'saveRiskAnswers', 1);
    const read = await graphql(scene.gateway, tokens.otherBroker, 'query($id: ID!) { tender(id: $id) { riskAssessment { answers } } }', {
      id: fresh.id,
    });
    expect(read.body.data.tender.riskAssessment.answers).toEqual(cyberAnswers());
    const [entry] = await entriesOnceWritten(fresh.id, 'Tender.riskAssessment', 1);
    expect(entry).toMatchObject({ role: 'broker', surface: 'GRAPHQL', party: { _id: scene.world.brokers[1].id } });
  });
});

describe('webhook deliveries', () => {
  it('carry no personal data (ids and statuses only), so a delivery records nothing', async () => {
    const hooks = await startGateway({
      env: { ...FLUSH_ENV, WEBHOOK_URL_ALLOW: '127.0.0.1', WEBHOOK_POLL_INTERVAL_MS: '20', WEBHOOK_RETRY_SCHEDULE: '50ms' },
    });
    const receiver = await startWebhookReceiver();
    try {
      const small = await createWorld(hooks.em());
      const fresh = await createTender(hooks.em(), small);
      const broker = await tokenFor(hooks, Role.BROKER, { brokerCompanyId: small.brokers[0].id });
      const registered = await fetch(`${hooks.url}/integration/v1/webhook-endpoints`, {
        method: 'POST',
        headers: { authorization: `Bearer ${broker}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url('/broker'), event_types: ['tender.status_changed'] }),
      });
      expect(registered.status).toBe(201);
      const internal = await tokenFor(hooks, Role.INTERNAL);
      const closing = await graphql(hooks, internal, 'mutation($id: ID!) { closeTender(tenderId: $id, reason: "done") { status } }', {
        id: fresh.id,
      });
      expect(closing.body.errors).toBeUndefined();
      await expect.poll(() => receiver.received('/broker').length, { timeout: 10_000 }).toBe(1);
      const [delivery] = receiver.received('/broker');
      expect(delivery.event.data).toEqual({ tender_id: fresh.id, status: 'CLOSED' });
      expect(delivery.body).not.toContain('Acme GmbH');
      // A marker read after the delivery: once it is written, a record of the delivery would be too.
      await getJson(hooks, `/api/v1/tenders/${fresh.id}`, broker);
      await expect.poll(async () => (await getJson(hooks, `/api/v1/tenders/${fresh.id}/access-log`, internal)).body.payload.length).toBe(1);
      const { body } = await getJson(hooks, `/api/v1/tenders/${fresh.id}/access-log`, internal);
      expect(body.payload.map((entry: RestEntry) => entry.surface)).toEqual(['REST']);
    } finally {
      await receiver.close();
      await hooks.close();
    }
  });
});
