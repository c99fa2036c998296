import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { TenderStatus, type Tender } from '../src/tenders';
import { createTender } from './helpers/fixtures';
import { createClient, graphql, requestToken, type Credentials } from './helpers/gateway';
import { withGateway } from './helpers/scene';
import { awayFromWindowEdge } from './helpers/rate-limit-window';

/**
 * Answers kept per audience, request and feed revision (docs/rest-api.md#kept-answers). The timers that would talk
 * to the database on their own are a minute and more apart, so a test sees the statements of its requests.
 */
const scene = withGateway({
  per: 'file',
  world: true,
  dispatch: false,
  env: {
    ACCESS_LOG_FLUSH_MS: '20',
    TOKEN_STANDING_RECONCILE_MS: '60000',
    QUOTE_EXPIRY_INTERVAL_MS: '3600000',
    SUBJECTIVITY_SWEEP_MS: '3600000',
  },
});

let own: Tender;
let others: Tender;
let won: Tender;
const clients = {} as Record<'broker' | 'sameCompany' | 'otherCompany' | 'insurer' | 'otherInsurer' | 'internal', Credentials>;
const tokens = {} as Record<keyof typeof clients, string>;

beforeAll(async () => {
  const em = scene.em();
  const { insurers } = scene.world;
  own = await createTender(em, scene.world, { invited: [insurers[0]] });
  others = await createTender(em, scene.world, { broker: 1, invited: [insurers[1]] });
  // Both insurers were invited; the tender went to the first, so the second sees only its identifying fields.
  won = await createTender(em, scene.world, {
    status: TenderStatus.SUCCESSFUL,
    invited: [insurers[0], insurers[1]],
    awardedInsurer: insurers[0],
  });
  const { brokers } = scene.world;
  const bindings: Record<keyof typeof clients, [Role, { insurerId?: string; brokerCompanyId?: string }]> = {
    broker: [Role.BROKER, { brokerCompanyId: brokers[0].id }],
    sameCompany: [Role.BROKER, { brokerCompanyId: brokers[0].id }],
    otherCompany: [Role.BROKER, { brokerCompanyId: brokers[1].id }],
    insurer: [Role.INSURER, { insurerId: insurers[0].id }],
    otherInsurer: [Role.INSURER, { insurerId: insurers[1].id }],
    internal: [Role.INTERNAL, {}],
  };
  for (const [name, [role, binding]] of Object.entries(bindings) as [keyof typeof clients, (typeof bindings)[keyof typeof clients]][]) {
    clients[name] = await createClient(scene.gateway, role, binding);
    tokens[name] = await requestToken(scene.gateway, clients[name]);
  }
});

async function get(path: string, token: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${scene.gateway.url}${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** The answer to `path` and the SQL statements it cost (the rate limit's and the access log's batches aside). */
async function getCounting(path: string, token: string) {
  const statements: string[] = [];
  const knex = (scene.gateway.orm.em.getConnection() as AbstractSqlConnection).getKnex();
  const listener = (query: { sql: string }) => {
    if (!/rate_limit_counter|access_log_entry/.test(query.sql)) statements.push(query.sql);
  };
  knex.on('query', listener);
  try {
    return { ...(await get(path, token)), statements };
  } finally {
    knex.removeListener('query', listener);
  }
}

const idsOf = (text: string): string[] => (JSON.parse(text) as { payload: { _id: string }[] }).payload.map((tender) => tender._id);

const closeTender = (token: string, id: string) =>
  graphql(scene.gateway, token, 'mutation($id: ID!) { closeTender(tenderId: $id, reason: "no longer needed") { status } }', { id });

describe('kept answers of the REST tender reads', () => {
  it('answer the same read again, and a second client of the same broker company, with the first bytes and headers after reading the revision alone', async () => {
    for (const path of ['/api/v1/tenders?limit=7', `/api/v1/tenders/${own.id}`]) {
      const first = await getCounting(path, tokens.broker);
      expect(first.status, first.text).toBe(200);
      expect(first.statements.length, path).toBeGreaterThan(1);
      for (const token of [tokens.broker, tokens.sameCompany]) {
        const again = await getCounting(path, token);
        expect(again.status).toBe(200);
        expect(again.text).toBe(first.text);
        for (const header of ['etag', 'content-type', 'content-length', 'cache-control', 'vary'])
          expect(again.headers.get(header), header).toBe(first.headers.get(header));
        // Only the feed's revision is read: no page, no count, no tender.
        expect(again.statements, path).toHaveLength(1);
        expect(again.statements[0]).toMatch(/from [`"]?tender_feed[`"]?/);
      }
    }
    const metrics = await (await fetch(`${scene.gateway.url}/metrics`)).text();
    expect(Number(/^rest_kept_responses_total\{outcome="hit"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(4);
    expect(Number(/^rest_kept_responses_bytes (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
  });

  it("never answer one broker company or one insurer with another's kept answer", async () => {
    // Each reads after the other's answer was kept, at the same path and with the same query.
    const brokerPage = await get('/api/v1/tenders', tokens.broker);
    const otherBrokerPage = await get('/api/v1/tenders', tokens.otherCompany);
    expect(idsOf(brokerPage.text)).toEqual(expect.arrayContaining([own.id, won.id]));
    expect(idsOf(brokerPage.text)).not.toContain(others.id);
    expect(idsOf(otherBrokerPage.text)).toEqual([others.id]);
    expect(otherBrokerPage.headers.get('etag')).not.toBe(brokerPage.headers.get('etag'));

    const insurerPage = await get('/public/v1/tenders', tokens.insurer);
    const otherInsurerPage = await get('/public/v1/tenders', tokens.otherInsurer);
    expect(idsOf(insurerPage.text).sort()).toEqual([own.id, won.id].sort());
    expect(idsOf(otherInsurerPage.text).sort()).toEqual([others.id, won.id].sort());

    // The tender both insurers see: in full for its winner, its identifying fields alone for the other.
    const forWinner = await get(`/public/v1/tenders/${won.id}`, tokens.insurer);
    const forOther = await get(`/public/v1/tenders/${won.id}`, tokens.otherInsurer);
    expect(JSON.parse(forWinner.text).customer).not.toBeNull();
    expect(JSON.parse(forOther.text).customer).toBeNull();

    // A tender one insurer read is still a 404 for an insurer not invited to it, however often it was read.
    expect((await get(`/public/v1/tenders/${own.id}`, tokens.insurer)).status).toBe(200);
    expect((await get(`/public/v1/tenders/${own.id}`, tokens.otherInsurer)).status).toBe(404);

    // The open list serves brokers and insurers under one path: each its own tenders.
    const openPaths = { broker: '/public/v1/tenders/open', otherCompany: '/public/v1/tenders/open', insurer: '/public/v1/tenders/open' };
    const open = Object.fromEntries(
      await Promise.all(
        Object.entries(openPaths).map(async ([name, path]) => [name, idsOf((await get(path, tokens[name as keyof typeof tokens])).text)]),
      ),
    ) as Record<keyof typeof openPaths, string[]>;
    expect(open.broker).toEqual([own.id]);
    expect(open.otherCompany).toEqual([others.id]);
    expect(open.insurer).toEqual([own.id]);
    // Internal users see every tender under the broker API's path a broker's answer was kept at.
    expect(idsOf((await get('/api/v1/tenders', tokens.internal)).text)).toEqual(expect.arrayContaining([own.id, others.id, won.id]));
  });

  it('answer a read after a change with the change, whether the client sends its tag or not', async () => {
    const tender = await createTender(scene.em(), scene.world);
    const path = `/api/v1/tenders/${tender.id}`;
    const list = '/api/v1/tenders/open?limit=50';
    const before = await get(path, tokens.broker);
    const listBefore = await get(list, tokens.broker);
    expect(idsOf(listBefore.text)).toContain(tender.id);
    expect((await get(path, tokens.sameCompany)).text).toBe(before.text); // kept

    expect((await closeTender(tokens.broker, tender.id)).body.errors).toBeUndefined();
    for (const token of [tokens.broker, tokens.sameCompany]) {
      const after = await get(path, token);
      expect(JSON.parse(after.text).status).toBe(TenderStatus.CLOSED);
      expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
      const tagged = await get(path, token, { 'if-none-match': before.headers.get('etag')! });
      expect(tagged.status).toBe(200);
      expect(JSON.parse(tagged.text).status).toBe(TenderStatus.CLOSED);
      expect(idsOf((await get(list, token)).text)).not.toContain(tender.id);
    }
  });

  it("drop an audience's answers of an older revision once one of its new revision is kept, and no other audience's", async () => {
    const keptBytes = async () =>
      Number(/^rest_kept_responses_bytes (\d+)$/m.exec(await (await fetch(`${scene.gateway.url}/metrics`)).text())![1]);
    const insurerPage = await get('/public/v1/tenders?limit=3', tokens.insurer);
    for (const limit of [1, 2, 3]) expect((await get(`/api/v1/tenders?limit=${limit}`, tokens.otherCompany)).status).toBe(200);
    const before = await keptBytes();
    // A change the second broker company sees (and the insurers do not): its three pages are of the revision before.
    await createTender(scene.em(), scene.world, { broker: 1 });
    const page = await get('/api/v1/tenders?limit=1', tokens.otherCompany);
    expect(idsOf(page.text)).toHaveLength(1);
    const after = await keptBytes();
    expect(after).toBeLessThan(before);
    // The insurer's page is still kept: the same bytes, after the revision's read alone.
    const again = await getCounting('/public/v1/tenders?limit=3', tokens.insurer);
    expect(again.text).toBe(insurerPage.text);
    expect(again.statements).toHaveLength(1);
  });

  it('record each client that is answered a kept tender in the access log, and refuse a revoked token a kept answer', async () => {
    const path = `/api/v1/tenders/${own.id}`;
    const reader = await createClient(scene.gateway, Role.BROKER, { brokerCompanyId: scene.world.brokers[0].id });
    const readerToken = await requestToken(scene.gateway, reader);
    expect((await get(path, tokens.broker)).status).toBe(200);
    expect((await get(path, readerToken)).status).toBe(200); // kept: made for the first client
    await expect
      .poll(async () => {
        const log = JSON.parse((await get(`/api/v1/tenders/${own.id}/access-log?limit=200`, tokens.internal)).text) as {
          payload: { app_id: string; operation: string }[];
        };
        return log.payload.filter((entry) => entry.operation === 'GET /api/v1/tenders/:id').map((entry) => entry.app_id);
      })
      .toEqual(expect.arrayContaining([clients.broker.appId, reader.appId]));

    const revoked = await fetch(`${scene.gateway.url}/auth/token-revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${readerToken}` },
    });
    expect(revoked.status).toBeLessThan(300);
    const refused = await get(path, readerToken);
    expect(refused.status).toBe(401);
    expect(refused.text).not.toContain(own.id);
  });

  // Last of this scene's tests: the customer of every tender above is erased.
  it("never answer an erased customer's data from a kept answer, to its broker or an invited insurer", async () => {
    const { name } = scene.world.customer;
    const reads = [
      { path: `/api/v1/tenders/${own.id}`, token: tokens.broker },
      { path: '/api/v1/tenders?limit=50', token: tokens.sameCompany },
      { path: `/public/v1/tenders/${own.id}`, token: tokens.insurer },
    ];
    for (const { path, token } of reads) {
      expect((await get(path, token)).text).toContain(name);
      expect((await get(path, token)).text).toContain(name); // kept
    }
    const { body } = await graphql(
      scene.gateway,
      tokens.internal,
      'mutation($customerId: ID!, $reason: String!) { eraseCustomer(customerId: $customerId, reason: $reason) { tenders } }',
      { customerId: scene.world.customer.id, reason: 'the customer asked' },
    );
    expect(body.errors).toBeUndefined();
    for (const { path, token } of reads) {
      const after = await get(path, token);
      expect(after.status).toBe(200);
      expect(after.text, path).not.toContain(name);
    }
  });
});

describe('kept answers and the checks every request passes', () => {
  const LIMIT = 4;
  const limited = withGateway({
    per: 'file',
    world: true,
    dispatch: false,
    env: { RATE_LIMIT_PER_MINUTE: String(LIMIT), RATE_LIMIT_SYNC_MS: '0' },
  });

  it("count against the client's rate limit like any read", async () => {
    await createTender(limited.em(), limited.world);
    const token = await limited.token(Role.BROKER);
    await awayFromWindowEdge(60_000);
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i++) {
      const response = await fetch(`${limited.gateway.url}/api/v1/tenders`, { headers: { authorization: `Bearer ${token}` } });
      statuses.push(response.status);
    }
    // The first is read, the next three answered from what it kept, the fifth refused.
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });
});

describe('with KEPT_RESPONSES_BYTES=0', () => {
  const off = withGateway({ per: 'file', world: true, dispatch: false, env: { KEPT_RESPONSES_BYTES: '0' } });

  it('keeps nothing: every read runs, and answers the same bytes as a kept one would', async () => {
    const tender = await createTender(off.em(), off.world);
    const token = await off.token(Role.BROKER);
    const answers = [];
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${off.gateway.url}/api/v1/tenders/${tender.id}`, { headers: { authorization: `Bearer ${token}` } });
      answers.push({ text: await response.text(), etag: response.headers.get('etag'), type: response.headers.get('content-type') });
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[0].type).toBe('application/json; charset=utf-8');
    expect(JSON.parse(answers[0].text)._id).toBe(tender.id);
    const metrics = await (await fetch(`${off.gateway.url}/metrics`)).text();
    expect(metrics).not.toMatch(/^rest_kept_responses_total\{outcome="hit"\} [1-9]/m);
    expect(metrics).toMatch(/^rest_kept_responses_bytes 0$/m);
  });
});
