import { afterEach, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import type { Tender } from '../src/tenders';
import { createTender, createWorld, type World } from './helpers/fixtures';
import { graphql, startGateway, tokenFor, type Gateway } from './helpers/gateway';
import { waitFor } from './helpers/simulator';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver';

/** How long the attacker's receivers take to answer: slow, but within the delivery deadline, so every attempt holds its slot. */
const SLOW_MS = 4000;
/** Receivers on loopback (listed, as partners' URLs may reach it only then); a deadline above the slow answer. */
const WEBHOOKS = {
  WEBHOOK_POLL_INTERVAL_MS: '20',
  WEBHOOK_RETRY_SCHEDULE: '1s',
  WEBHOOK_TIMEOUT_MS: '10000',
  WEBHOOK_LEASE_MS: '30000',
  WEBHOOK_URL_ALLOW: '127.0.0.1',
};

let gateway: Gateway | undefined;
let world: World;
const receivers: WebhookReceiver[] = [];

async function start(env: Record<string, string> = {}): Promise<Gateway> {
  gateway = await startGateway({ env: { ...WEBHOOKS, ...env } });
  world = await createWorld(gateway.em());
  return gateway;
}

async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver();
  receivers.push(started);
  return started;
}

async function rest(method: string, path: string, token: string, body?: unknown) {
  const response = await fetch(`${gateway!.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function register(token: string, url: string): Promise<string> {
  const { status, body } = await rest('POST', '/integration/v1/webhook-endpoints', token, { url, event_types: ['tender.status_changed'] });
  expect(status, JSON.stringify(body)).toBe(201);
  return body._id;
}

/** One status change of a tender (closing an open one, reopening a closed one). */
async function change(token: string, mutation: 'closeTender' | 'reopenTender', tender: Tender): Promise<void> {
  const args = mutation === 'closeTender' ? '(tenderId: $t, reason: "done")' : '(tenderId: $t)';
  const { body } = await graphql(gateway!, token, `mutation($t: ID!) { ${mutation}${args} { status } }`, { t: tender.id });
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
}

afterEach(async () => {
  // The gateway first: it finishes the attempts in hand, which the receivers still answer.
  await gateway?.close();
  gateway = undefined;
  for (const started of receivers.splice(0)) await started.close();
});

describe('webhook slots are shared per client', () => {
  it(
    "another client's event arrives within its normal latency while one client floods its ten slow endpoints with status changes",
    { timeout: 120_000 },
    async () => {
      await start();
      const attacker = await tokenFor(gateway!, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
      const victim = await tokenFor(gateway!, Role.BROKER, { brokerCompanyId: world.brokers[1].id });
      const victimTender = await createTender(gateway!.em(), world, { broker: 1 });
      const attackerTenders: Tender[] = [];
      for (let i = 0; i < 15; i++) attackerTenders.push(await createTender(gateway!.em(), world, { broker: 0 }));

      const victimReceiver = await receiver();
      await register(victim, victimReceiver.url('/victim'));
      // Ten real receivers (the endpoint limit), each taking 4 s to answer.
      const slow: WebhookReceiver[] = [];
      for (let i = 0; i < 10; i++) {
        const started = await receiver();
        started.answer(() => ({ status: 204, delayMs: SLOW_MS }));
        await register(attacker, started.url());
        slow.push(started);
      }
      const attackerArrivals = () => slow.flatMap((started) => started.received().map(({ receivedAt }) => receivedAt));

      // The victim's normal latency, measured here: from its status change to its receiver.
      const quietStart = Date.now();
      await change(victim, 'closeTender', victimTender);
      const [quiet] = await waitFor(
        'the baseline delivery',
        async () => victimReceiver.received('/victim').length === 1 && victimReceiver.received('/victim'),
      );
      const baseline = quiet.receivedAt - quietStart;

      // 30 status changes to ten slow endpoints: 300 deliveries of 4 s each, minutes of work for the dispatcher.
      for (const tender of attackerTenders) await change(attacker, 'closeTender', tender);
      for (const tender of attackerTenders) await change(attacker, 'reopenTender', tender);
      const flood = attackerTenders.length * 2 * slow.length;
      await waitFor('the flood to be under way', async () => attackerArrivals().length > 0);

      const floodedStart = Date.now();
      await change(victim, 'reopenTender', victimTender);
      const [, flooded] = await waitFor(
        "the victim's event during the flood",
        async () => victimReceiver.received('/victim').length === 2 && victimReceiver.received('/victim'),
        30_000,
      );
      const latency = flooded.receivedAt - floodedStart;

      expect(flooded.event.data.status).toBe('REOPENED');
      // Far from the flood's drain time (at least 300 × 4 s over the 16 slots, 75 s): within one slow answer of the baseline.
      expect(latency, `baseline ${baseline} ms`).toBeLessThan(Math.max(5 * baseline, baseline + SLOW_MS));
      // The backlog is still there: the victim did not wait for it.
      expect(attackerArrivals().filter((at) => at <= flooded.receivedAt).length).toBeLessThan(flood / 2);
    },
  );
});

describe('replays', () => {
  /** An endpoint that has received `count` status changes of one tender (closed, reopened, closed, ...). */
  async function deliveredEndpoint(count: number) {
    const token = await tokenFor(gateway!, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
    const tender = await createTender(gateway!.em(), world, { broker: 0 });
    const hooks = await receiver();
    const id = await register(token, hooks.url());
    const since = new Date(Date.now() - 1000).toISOString();
    for (let i = 0; i < count; i++) {
      await change(token, i % 2 === 0 ? 'closeTender' : 'reopenTender', tender);
      await waitFor(`delivery ${i + 1}`, async () => hooks.received().length === i + 1);
    }
    const delivered = async () =>
      (await rest('GET', `/integration/v1/webhook-endpoints/${id}/deliveries`, token)).body.payload.every(
        (d: { status: string }) => d.status === 'DELIVERED',
      );
    await waitFor('the log to say delivered', delivered);
    return { token, tender, hooks, id, since, delivered };
  }

  it('a second replay of an endpoint while one is running is refused with 409 CONFLICT; once it has finished, a replay is accepted again', async () => {
    await start();
    const { token, id, since, delivered } = await deliveredEndpoint(3);
    // Disabled, the endpoint keeps the first replay running: its deliveries wait for their first attempt.
    expect((await rest('PATCH', `/integration/v1/webhook-endpoints/${id}`, token, { enabled: false })).status).toBe(200);
    const replay = () => rest('POST', `/integration/v1/webhook-endpoints/${id}/replay`, token, { since });
    const both = await Promise.all([replay(), replay()]);
    expect(both.map(({ status }) => status).sort()).toEqual([200, 409]);
    expect(both.find(({ status }) => status === 200)!.body).toEqual({ requeued: 3 });
    const refused = both.find(({ status }) => status === 409)!.body;
    expect(refused).toMatchObject({ code: 'CONFLICT', detail: expect.stringMatching(/replay of this endpoint is still running/) });
    expect((await replay()).status).toBe(409);

    const viaGraphql = await graphql(
      gateway!,
      token,
      'mutation($id: ID!, $since: DateTimeISO!) { replayWebhookDeliveries(endpointId: $id, since: $since) }',
      { id, since },
    );
    expect(viaGraphql.body.errors[0].extensions.code).toBe('CONFLICT');

    expect((await rest('PATCH', `/integration/v1/webhook-endpoints/${id}`, token, { enabled: true })).status).toBe(200);
    await waitFor('the replay to finish', delivered);
    expect(await replay()).toMatchObject({ status: 200, body: { requeued: 3 } });
  });

  it("replays beyond the client's daily volume are refused with 429 RATE_LIMITED; the last one within it takes what is left", async () => {
    await start({ WEBHOOK_REPLAY_PER_DAY: '5' });
    const { token, id, since, hooks, delivered } = await deliveredEndpoint(3);
    const replay = () => rest('POST', `/integration/v1/webhook-endpoints/${id}/replay`, token, { since });
    expect(await replay()).toMatchObject({ status: 200, body: { requeued: 3 } });
    await waitFor('the first replay', async () => hooks.received().length === 6 && (await delivered()));
    // Two of the day's five are left: the newest two go out again.
    expect(await replay()).toMatchObject({ status: 200, body: { requeued: 2 } });
    await waitFor('the second replay', async () => hooks.received().length === 8 && (await delivered()));
    const refused = await replay();
    expect(refused).toMatchObject({ status: 429, body: { code: 'RATE_LIMITED', detail: expect.stringMatching(/5 deliveries a day/) } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hooks.received()).toHaveLength(8);
  });

  it('replayed deliveries do not overtake live ones: events after a replay still go out first', async () => {
    await start({ WEBHOOK_CONCURRENCY_PER_ENDPOINT: '1' });
    const { token, tender, id, since, hooks } = await deliveredEndpoint(3);
    const replayedEvents = hooks.received().map(({ event }) => event.id);
    // The next attempt takes a while: what is queued meanwhile waits behind it, in the order the dispatcher chooses.
    hooks.answer((_path, n) => (n === 4 ? { status: 204, delayMs: 1500 } : { status: 204 }));
    await change(token, 'reopenTender', tender);
    await waitFor('the slow attempt', async () => hooks.received().length === 4);
    expect(await rest('POST', `/integration/v1/webhook-endpoints/${id}/replay`, token, { since })).toMatchObject({
      status: 200,
      body: { requeued: 3 },
    });
    await change(token, 'closeTender', tender);
    await change(token, 'reopenTender', tender);

    await waitFor('every delivery', async () => hooks.received().length === 9, 20_000);
    const after = hooks.received().slice(4);
    const live = after.slice(0, 2);
    expect(live.filter(({ event }) => replayedEvents.includes(event.id))).toEqual([]);
    expect(live.map(({ event }) => event.data.status)).toEqual(['CLOSED', 'REOPENED']);
    expect(
      after
        .slice(2)
        .map(({ event }) => event.id)
        .sort(),
    ).toEqual([...replayedEvents].sort());
  });
});
