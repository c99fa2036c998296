import { beforeEach, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { WebhookDelivery } from '../src/webhooks';
import { createTender, createWorld } from './helpers/fixtures';
import { graphql, json, startGateway, tokenFor, graphqlData, restRequest } from './helpers/gateway';
import { RETRYING_WEBHOOKS_ENV, withGateway } from './helpers/scene';
import { startSimulatedInsurers, waitFor, type SimulatedInsurers } from './helpers/simulator';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from './helpers/webhook-receiver';

const BROKER_EVENTS = ['tender.status_changed', 'quote.received', 'policy_documentation.confirmed'];
const INSURER_EVENTS = ['tender.invited', 'tender.status_changed', 'cover.ordered'];
/** Quick retries; the receivers listen on loopback, which partners' URLs may reach only when listed. */
const WEBHOOKS = { ...RETRYING_WEBHOOKS_ENV, WEBHOOK_SECRET_GRACE: '0s' };

let broker: string;
let receiver: WebhookReceiver;
let sims: SimulatedInsurers | undefined;

const rest = (method: string, path: string, token: string, body?: unknown) => restRequest(scene.gateway, method, path, token, body);

async function register(
  token: string,
  client: 'broker' | 'insurer',
  path: string,
  eventTypes = client === 'broker' ? BROKER_EVENTS : INSURER_EVENTS,
) {
  const { status, body } = await rest('POST', '/integration/v1/webhook-endpoints', token, {
    url: receiver.url(path),
    event_types: eventTypes,
  });
  expect(status, JSON.stringify(body)).toBe(201);
  return body as { _id: string; secret: string };
}

const gql = (token: string, query: string, variables?: Record<string, unknown>) => graphqlData(scene.gateway, token, query, variables);

const types = (received: ReceivedWebhook[]) => received.map(({ event }) => `${event.type}:${event.data.status}`);

const scene = withGateway({ env: WEBHOOKS, tender: true });

beforeEach(async () => {
  broker = await scene.token(Role.BROKER);
  receiver = scene.closes(await startWebhookReceiver());
});

describe('tender events to partners, signed per Standard Webhooks', () => {
  it('each party receives the events it may see, once, signed and verifiable with the standardwebhooks package', async () => {
    sims = scene.closes(await startSimulatedInsurers(scene.gateway, [{ name: 'Anchor Insurance' }, { name: 'Beacon Insurance' }]));
    const [anchor, beacon] = sims.insurers;
    const anchorToken = await tokenFor(scene.gateway, Role.INSURER, { insurerId: anchor.id });
    const beaconToken = await tokenFor(scene.gateway, Role.INSURER, { insurerId: beacon.id });
    const otherBroker = await tokenFor(scene.gateway, Role.BROKER, { brokerCompanyId: scene.world.brokers[1].id });
    const secrets = {
      broker: (await register(broker, 'broker', '/broker')).secret,
      anchor: (await register(anchorToken, 'insurer', '/anchor')).secret,
      beacon: (await register(beaconToken, 'insurer', '/beacon')).secret,
    };
    await register(otherBroker, 'broker', '/other-broker');

    await gql(broker, 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }', {
      input: {
        tenderId: scene.tender.id,
        insurerIds: [anchor.id, beacon.id],
        limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }],
        riskInformation: {},
      },
    });
    const quoted = await waitFor('both quotes', async () => {
      const data = await gql(broker, 'query($id: ID!) { quoteRequests(tenderId: $id) { status insurer { id } options { id } } }', {
        id: scene.tender.id,
      });
      return data.quoteRequests.every((request: { status: string }) => request.status === 'QUOTED') && data.quoteRequests;
    });
    const anchorOption = quoted.find((request: { insurer: { id: string } }) => request.insurer.id === anchor.id).options[0].id;
    await gql(broker, 'mutation($t: ID!, $o: ID!) { orderCover(tenderId: $t, quoteOptionId: $o) { status } }', {
      t: scene.tender.id,
      o: anchorOption,
    });
    await gql(anchorToken, 'mutation($t: ID!) { finaliseContract(tenderId: $t) { status } }', { t: scene.tender.id });
    await gql(anchorToken, 'mutation($t: ID!) { confirmPolicyDocumentation(tenderId: $t, policyNumber: "POL-1") { status } }', {
      t: scene.tender.id,
    });

    await waitFor(
      'every delivery',
      async () =>
        receiver.received('/broker').length === 5 && receiver.received('/anchor').length === 4 && receiver.received('/beacon').length === 3,
    );
    expect(types(receiver.received('/broker')).sort()).toEqual(
      [
        'quote.received:QUOTES_AVAILABLE',
        'quote.received:QUOTES_AVAILABLE',
        'tender.status_changed:IN_COVERNOTE',
        'tender.status_changed:SUCCESSFUL',
        'policy_documentation.confirmed:SUCCESSFUL',
      ].sort(),
    );
    // The winner hears that cover was ordered from it; the loser only what its list shows: the statuses.
    expect(types(receiver.received('/anchor')).sort()).toEqual(
      [
        'tender.invited:QUOTES_AVAILABLE',
        'tender.status_changed:IN_COVERNOTE',
        'cover.ordered:IN_COVERNOTE',
        'tender.status_changed:SUCCESSFUL',
      ].sort(),
    );
    expect(types(receiver.received('/beacon')).sort()).toEqual(
      ['tender.invited:QUOTES_AVAILABLE', 'tender.status_changed:IN_COVERNOTE', 'tender.status_changed:SUCCESSFUL'].sort(),
    );
    expect(
      receiver
        .received('/beacon')
        .map(({ body }) => body)
        .join(),
    ).not.toContain(anchor.id);
    expect(receiver.received('/other-broker')).toEqual([]);

    for (const [path, secret] of [
      ['/broker', secrets.broker],
      ['/anchor', secrets.anchor],
      ['/beacon', secrets.beacon],
    ] as const) {
      for (const webhook of receiver.received(path)) {
        expect(receiver.verify(webhook, secret)).toEqual(webhook.event);
        expect(() => receiver.verify(webhook, secrets.broker === secret ? secrets.anchor : secrets.broker)).toThrow();
        expect(webhook.headers['webhook-id']).toMatch(/^msg_[\w-]+$/);
        expect(webhook.event).toMatchObject({ id: expect.stringMatching(/^evt_/), data: { tender_id: scene.tender.id } });
      }
    }
    // One event, the same id for every party that hears of it; one webhook-id per endpoint.
    const statusEvents = (path: string) =>
      receiver
        .received(path)
        .filter(({ event }) => event.type === 'tender.status_changed')
        .map(({ event }) => event.id)
        .sort();
    expect(statusEvents('/anchor')).toEqual(statusEvents('/broker'));
    expect(statusEvents('/beacon')).toEqual(statusEvents('/broker'));
  });

  it('the insurer simulator verifies every webhook it receives, and refuses one signed with a secret it does not hold', async () => {
    sims = scene.closes(await startSimulatedInsurers(scene.gateway, [{ name: 'Anchor Insurance' }]));
    const [anchor] = sims.insurers;
    const anchorToken = await tokenFor(scene.gateway, Role.INSURER, { insurerId: anchor.id });
    const created = await rest('POST', '/integration/v1/webhook-endpoints', anchorToken, {
      url: `${anchor.quoteApiUrl}/webhooks`,
      event_types: ['tender.invited', 'tender.status_changed'],
    });
    expect(created.status).toBe(201);
    sims.simulator.setWebhookSecret(sims.slugs[0], created.body.secret);
    await gql(broker, 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }', {
      input: {
        tenderId: scene.tender.id,
        insurerIds: [anchor.id],
        limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }],
        riskInformation: {},
      },
    });
    await waitFor('the invitation', async () => sims!.simulator.stats(sims!.slugs[0]).webhooks === 1);
    expect(sims.simulator.webhooks(sims.slugs[0]).map(({ event }) => [event.type, event.data.tender_id])).toEqual([
      ['tender.invited', scene.tender.id],
    ]);

    // A rotation the insurer system was not told of: its verification fails, and the gateway keeps retrying.
    await rest('POST', `/integration/v1/webhook-endpoints/${created.body._id}/rotate-secret`, anchorToken);
    await gql(broker, 'mutation($t: ID!) { closeTender(tenderId: $t, reason: "done") { status } }', { t: scene.tender.id });
    await waitFor('a refused delivery', async () => sims!.simulator.stats(sims!.slugs[0]).webhookRejections >= 1);
    expect(sims.simulator.stats(sims.slugs[0]).webhooks).toBe(1);
    const log = await rest('GET', `/integration/v1/webhook-endpoints/${created.body._id}/deliveries`, anchorToken);
    const closing = log.body.payload.find((delivery: { event_type: string }) => delivery.event_type === 'tender.status_changed');
    expect(closing).toMatchObject({ last_status_code: 401, status: expect.stringMatching(/^(PENDING|FAILED)$/) });
  });

  it('an endpoint gets only the event types it subscribed to', async () => {
    await register(broker, 'broker', '/closing', ['tender.status_changed']);
    await register(broker, 'broker', '/quotes-only', ['quote.received']);
    await gql(broker, 'mutation($t: ID!) { closeTender(tenderId: $t, reason: "no longer needed") { status } }', { t: scene.tender.id });
    await waitFor('the status change', async () => receiver.received('/closing').length === 1);
    expect(types(receiver.received('/closing'))).toEqual(['tender.status_changed:CLOSED']);
    expect(receiver.received('/quotes-only')).toEqual([]);
  });

  it('two concurrent closes: one wins, one is a CONFLICT, and the event is enqueued once', async () => {
    await register(broker, 'broker', '/race');
    const close = () =>
      graphql(scene.gateway, broker, 'mutation($t: ID!) { closeTender(tenderId: $t, reason: "done") { status } }', { t: scene.tender.id });
    const answers = await Promise.all([close(), close()]);
    const codes = answers.map(({ body }) => body.errors?.[0]?.extensions?.code ?? 'OK').sort();
    expect(codes[0] === 'OK' || codes[1] === 'OK').toBe(true);
    expect(await scene.gateway.em().count(WebhookDelivery, {})).toBe(1);
    await waitFor('the delivery', async () => receiver.received('/race').length === 1);
  });

  it("a disabled client's endpoint gets nothing while the client is disabled", async () => {
    await register(broker, 'broker', '/disabled-client');
    const internal = await tokenFor(scene.gateway, Role.INTERNAL);
    const appId = (await gql(broker, '{ me { appId } }')).me.appId;
    await gql(internal, 'mutation($a: String!) { disableApiClient(appId: $a) { appId } }', { a: appId });
    const otherBroker = await tokenFor(scene.gateway, Role.BROKER, { brokerCompanyId: scene.world.brokers[0].id });
    await register(otherBroker, 'broker', '/colleague');
    await gql(otherBroker, 'mutation($t: ID!) { closeTender(tenderId: $t, reason: "done") { status } }', { t: scene.tender.id });
    await waitFor("the colleague's delivery", async () => receiver.received('/colleague').length === 1);
    expect(receiver.received('/disabled-client')).toEqual([]);
  });

  it('a refused change enqueues nothing: an invalid transition leaves the outbox as it was', async () => {
    await register(broker, 'broker', '/broker');
    const { body } = await graphql(scene.gateway, broker, 'mutation($t: ID!) { finaliseContract(tenderId: $t) { status } }', {
      t: scene.tender.id,
    });
    expect(body.errors[0].extensions.code).toBe('FORBIDDEN');
    const reopen = await graphql(scene.gateway, broker, 'mutation($t: ID!) { reopenTender(tenderId: $t) { status } }', {
      t: scene.tender.id,
    });
    expect(reopen.body.errors[0].extensions.code).toBe('INVALID_TRANSITION');
    expect(await scene.gateway.em().count(WebhookDelivery, {})).toBe(0);
  });
});

describe('delivery, retries and the delivery log', () => {
  const closeTender = () =>
    gql(broker, 'mutation($t: ID!) { closeTender(tenderId: $t, reason: "done") { status } }', { t: scene.tender.id });
  const deliveries = async (id: string) => (await rest('GET', `/integration/v1/webhook-endpoints/${id}/deliveries`, broker)).body;

  it('retries 5xx answers and timeouts-free failures with backoff, honours Retry-After, and logs every attempt', async () => {
    receiver.answer((_path, n) =>
      n === 1 ? { status: 503, headers: { 'retry-after': '1' } } : n === 2 ? { status: 500 } : { status: 200 },
    );
    const { _id } = await register(broker, 'broker', '/flaky');
    await closeTender();
    await waitFor('the third attempt', async () => receiver.received('/flaky').length === 3, 10_000);
    const [first, second, third] = receiver.received('/flaky');
    expect(new Set([first, second, third].map(({ headers }) => headers['webhook-id'])).size).toBe(1);
    // Retry-After: 1 s held the second attempt back, longer than the schedule's 50 ms.
    expect(Number(second.headers['webhook-timestamp']) - Number(first.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(1);
    const log = await waitFor('the log to say delivered', async () => {
      const page = await deliveries(_id);
      return page.payload[0]?.status === 'DELIVERED' && page;
    });
    expect(log.metadata).toEqual({ count: '1', skip: '0', limit: '50' });
    expect(log.payload[0]).toMatchObject({
      event_type: 'tender.status_changed',
      attempts: 3,
      last_status_code: 200,
      last_error: null,
      _id: first.headers['webhook-id'],
    });
  });

  it('/metrics shows webhook deliveries by state, attempts by outcome with their latency, and the age of the oldest pending one', async () => {
    const scrape = async () => (await fetch(`${scene.gateway.url}/metrics`)).text();
    expect(await scrape()).toMatch(/^webhook_oldest_pending_delivery_age_seconds 0$/m);
    // One endpoint fails once and then takes the event; the other asks to be called again in a minute.
    receiver.answer((path, n) =>
      path === '/later' ? { status: 503, headers: { 'retry-after': '60' } } : n === 1 ? { status: 500 } : { status: 200 },
    );
    await register(broker, 'broker', '/flaky');
    await register(broker, 'broker', '/later');
    await closeTender();
    // The row is DELIVERED a moment before the attempt's counter is raised (after its commit): wait for both.
    const text = await waitFor('the delivery and the postponed attempt to be counted', async () => {
      const scraped = await scrape();
      return (
        /webhook_deliveries\{state="DELIVERED"\} 1/.test(scraped) &&
        /outcome="delivered"\} 1/.test(scraped) &&
        /outcome="retry"\} 2/.test(scraped) &&
        scraped
      );
    });
    expect(text).toMatch(/^webhook_deliveries\{state="PENDING"\} 1$/m);
    expect(text).toMatch(/^webhook_deliveries\{state="FAILED"\} 0$/m);
    expect(text).toMatch(/^webhook_delivery_attempts_total\{outcome="delivered"\} 1$/m);
    expect(text).toMatch(/^webhook_delivery_attempts_total\{outcome="retry"\} 2$/m);
    expect(text).toMatch(/^webhook_delivery_attempt_duration_seconds_count\{outcome="delivered"\} 1$/m);
    expect(text).toMatch(/^webhook_delivery_attempt_duration_seconds_bucket\{le="10",outcome="retry"\} 2$/m);
    const age = Number(/^webhook_oldest_pending_delivery_age_seconds (\S+)$/m.exec(text)?.[1]);
    expect(age).toBeGreaterThan(0);
    expect(age).toBeLessThan(30);
  });

  it('gives up after the retry schedule (FAILED, with the reason), and a replay sends it again with the same webhook-id', async () => {
    receiver.answer(() => ({ status: 500 }));
    const { _id } = await register(broker, 'broker', '/broken');
    const before = new Date(Date.now() - 1000).toISOString();
    await closeTender();
    const failed = await waitFor('the delivery to fail', async () => {
      const page = await deliveries(_id);
      return page.payload[0]?.status === 'FAILED' && page.payload[0];
    });
    // The first attempt and one per step of the schedule (three steps).
    expect(failed).toMatchObject({
      attempts: 4,
      last_status_code: 500,
      next_attempt_at: null,
      last_error: 'the endpoint answered 500 (gave up after 4 attempts)',
    });
    expect(receiver.received('/broken')).toHaveLength(4);

    receiver.answer(() => ({ status: 204 }));
    const replayed = await rest('POST', `/integration/v1/webhook-endpoints/${_id}/replay`, broker, { since: before });
    expect(replayed).toMatchObject({ status: 200, body: { requeued: 1 } });
    await waitFor('the replay', async () => (await deliveries(_id)).payload[0]?.status === 'DELIVERED');
    const sent = receiver.received('/broken');
    expect(sent).toHaveLength(5);
    expect(sent[4].headers['webhook-id']).toBe(sent[0].headers['webhook-id']);
    expect(sent[4].event.id).toBe(sent[0].event.id);
  });

  it('410 Gone disables the endpoint; its events wait, and enabling it sends them', async () => {
    receiver.answer((_path, n) => (n === 1 ? { status: 410 } : { status: 204 }));
    const { _id } = await register(broker, 'broker', '/gone');
    await closeTender();
    const disabled = await waitFor('the endpoint to be disabled', async () => {
      const { body } = await rest('GET', `/integration/v1/webhook-endpoints/${_id}`, broker);
      return body.enabled === false && body;
    });
    expect(disabled.disabled_reason).toBe('the endpoint answered 410 Gone');
    await gql(broker, 'mutation($t: ID!) { reopenTender(tenderId: $t) { status } }', { t: scene.tender.id });
    // The REOPENED event waits behind the disabled endpoint: recorded, not sent.
    await waitFor('the waiting event', async () =>
      (await deliveries(_id)).payload.some(
        (delivery: { status: string; attempts: number }) => delivery.status === 'PENDING' && delivery.attempts === 0,
      ),
    );
    expect(receiver.received('/gone')).toHaveLength(1);

    expect((await rest('PATCH', `/integration/v1/webhook-endpoints/${_id}`, broker, { enabled: true })).body.enabled).toBe(true);
    await waitFor('the waiting event', async () => receiver.received('/gone').length === 2);
    expect(types(receiver.received('/gone'))).toEqual(['tender.status_changed:CLOSED', 'tender.status_changed:REOPENED']);
    const statuses = await waitFor('the log to record it', async () => {
      const found = (await deliveries(_id)).payload.map((delivery: { status: string }) => delivery.status).sort();
      return found.includes('PENDING') ? false : found;
    });
    expect(statuses).toEqual(['DELIVERED', 'FAILED']);
  });

  it('after a rotation the old secret still signs for the grace period, so a receiver can switch over', async () => {
    const graceful = await startGateway({ env: { ...WEBHOOKS, WEBHOOK_SECRET_GRACE: '1h' } });
    try {
      const graceWorld = await createWorld(graceful.em());
      const graceTender = await createTender(graceful.em(), graceWorld);
      const token = await tokenFor(graceful, Role.BROKER, { brokerCompanyId: graceWorld.brokers[0].id });
      const call = async (method: string, path: string, body?: unknown) =>
        json(
          await fetch(`${graceful.url}${path}`, {
            method,
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: body === undefined ? undefined : JSON.stringify(body),
          }),
        );
      const { _id, secret: old } = await call('POST', '/integration/v1/webhook-endpoints', {
        url: receiver.url('/grace'),
        event_types: ['tender.status_changed'],
      });
      // Rotated through GraphQL, whose description promises the second signature.
      const rotated = await graphql(graceful, token, 'mutation($id: ID!) { rotateWebhookEndpointSecret(id: $id) { secret } }', { id: _id });
      const fresh: string = rotated.body.data.rotateWebhookEndpointSecret.secret;
      await graphql(graceful, token, 'mutation($t: ID!) { closeTender(tenderId: $t, reason: "done") { status } }', { t: graceTender.id });
      const [webhook] = await waitFor('the delivery', async () => receiver.received('/grace').length === 1 && receiver.received('/grace'));
      expect(String(webhook.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(receiver.verify(webhook, fresh)).toEqual(webhook.event);
      expect(receiver.verify(webhook, old)).toEqual(webhook.event);
    } finally {
      await graceful.close();
    }
  });

  it("rotateWebhookEndpointSecret's GraphQL description says what a rotation does: the old secret also signs during the grace period", async () => {
    const data = await gql(await tokenFor(scene.gateway, Role.INTERNAL), '{ __schema { mutationType { fields { name description } } } }');
    const rotate = data.__schema.mutationType.fields.find((field: { name: string }) => field.name === 'rotateWebhookEndpointSecret');
    expect(rotate.description).toMatch(/old secret signs them too/);
    expect(rotate.description).toMatch(/WEBHOOK_SECRET_GRACE/);
    expect(rotate.description).not.toMatch(/signs nothing/);
  });

  it('a rotated secret signs every later delivery; without a grace period the old one no longer verifies', async () => {
    const { _id, secret: old } = await register(broker, 'broker', '/rotated');
    const rotated = await rest('POST', `/integration/v1/webhook-endpoints/${_id}/rotate-secret`, broker);
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(rotated.body.secret).toMatch(/^whsec_/);
    await closeTender();
    const [webhook] = await waitFor(
      'the delivery',
      async () => receiver.received('/rotated').length === 1 && receiver.received('/rotated'),
    );
    expect(receiver.verify(webhook, rotated.body.secret)).toEqual(webhook.event);
    expect(() => receiver.verify(webhook, old)).toThrow();
  });
});

describe('managing endpoints', () => {
  it('refuses malformed bodies, unknown event types and fields with the field named, and creates nothing', async () => {
    const cases: [unknown, string][] = [
      [{ url: receiver.url(), event_types: ['tender.exploded'] }, '/event_types'],
      [{ url: 'ftp://example.com/hooks', event_types: ['tender.status_changed'] }, '/url'],
      [{ url: receiver.url(), event_types: [] }, '/event_types'],
      [{ url: receiver.url(), event_types: ['tender.status_changed', 'tender.status_changed'] }, '/event_types'],
      [{ url: receiver.url(), event_types: ['tender.status_changed'], secret: 'mine' }, '/secret'],
      [{ event_types: ['tender.status_changed'] }, '/url'],
    ];
    for (const [body, pointer] of cases) {
      const answer = await rest('POST', '/integration/v1/webhook-endpoints', broker, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(
        answer.body.errors.map((error: { pointer: string }) => error.pointer),
        JSON.stringify(body),
      ).toContain(pointer);
    }
    expect((await rest('GET', '/integration/v1/webhook-endpoints', broker)).body).toEqual([]);
  });

  it("shows a client only its own endpoints: another client's is 404 to read, change, rotate, replay or delete", async () => {
    const { _id } = await register(broker, 'broker', '/mine');
    const other = await tokenFor(scene.gateway, Role.BROKER, { brokerCompanyId: scene.world.brokers[1].id });
    expect((await rest('GET', '/integration/v1/webhook-endpoints', other)).body).toEqual([]);
    for (const [method, path, body] of [
      ['GET', `/integration/v1/webhook-endpoints/${_id}`],
      ['PATCH', `/integration/v1/webhook-endpoints/${_id}`, { enabled: false }],
      ['POST', `/integration/v1/webhook-endpoints/${_id}/rotate-secret`],
      ['POST', `/integration/v1/webhook-endpoints/${_id}/replay`, { since: new Date().toISOString() }],
      ['GET', `/integration/v1/webhook-endpoints/${_id}/deliveries`],
      ['DELETE', `/integration/v1/webhook-endpoints/${_id}`],
    ] as [string, string, unknown?][]) {
      expect((await rest(method, path, other, body)).status, `${method} ${path}`).toBe(404);
    }
    expect((await rest('GET', `/integration/v1/webhook-endpoints/${_id}`, broker)).status).toBe(200);
  });

  it("lets internal users manage any client's endpoints through GraphQL, and deleting one removes its log", async () => {
    const internal = await tokenFor(scene.gateway, Role.INTERNAL);
    const brokerAppId = (await gql(broker, '{ me { appId } }')).me.appId;
    const created = await gql(
      internal,
      'mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret endpoint { id appId eventTypes } } }',
      {
        input: { appId: brokerAppId, url: receiver.url('/managed'), eventTypes: ['TENDER_STATUS_CHANGED'] },
      },
    );
    expect(created.createWebhookEndpoint.endpoint).toMatchObject({ appId: brokerAppId, eventTypes: ['TENDER_STATUS_CHANGED'] });
    const listed = await rest('GET', '/integration/v1/webhook-endpoints', broker);
    expect(listed.body.map((endpoint: { _id: string; event_types: string[] }) => [endpoint._id, endpoint.event_types])).toEqual([
      [created.createWebhookEndpoint.endpoint.id, ['tender.status_changed']],
    ]);
    await gql(broker, 'mutation($t: ID!) { closeTender(tenderId: $t, reason: "done") { status } }', { t: scene.tender.id });
    await waitFor('the delivery', async () => receiver.received('/managed').length === 1);
    expect(await scene.gateway.em().count(WebhookDelivery, {})).toBe(1);
    expect((await rest('DELETE', `/integration/v1/webhook-endpoints/${created.createWebhookEndpoint.endpoint.id}`, broker)).status).toBe(
      204,
    );
    expect(await scene.gateway.em().count(WebhookDelivery, {})).toBe(0);
  });

  it('refuses endpoint URLs the partner URL policy forbids (private addresses in every environment, hosts not listed), naming /url', async () => {
    const guarded = await startGateway({ env: { ...WEBHOOKS, WEBHOOK_URL_ALLOW: 'hooks.partner.example' } });
    try {
      const guardedWorld = await createWorld(guarded.em());
      const token = await tokenFor(guarded, Role.BROKER, { brokerCompanyId: guardedWorld.brokers[0].id });
      for (const url of [
        'http://127.0.0.1:9/hooks',
        'http://169.254.169.254/latest/meta-data',
        'http://10.0.0.7/hooks',
        'https://elsewhere.example/hooks',
      ]) {
        const response = await fetch(`${guarded.url}/integration/v1/webhook-endpoints`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url, event_types: ['tender.status_changed'] }),
        });
        const body = await json(response);
        expect(response.status, url).toBe(400);
        // Refused by the service behind the route, and named by its place in the REST body.
        expect(body.errors[0]).toEqual({ pointer: '/url', message: expect.stringMatching(/^not allowed/) });
      }
    } finally {
      await guarded.close();
    }
  });

  it('checks the addresses a host resolves to at every delivery: a listed name that resolves to loopback fails at once', async () => {
    const guarded = await startGateway({ env: { ...WEBHOOKS, WEBHOOK_URL_ALLOW: 'localhost' } });
    try {
      const guardedWorld = await createWorld(guarded.em());
      const guardedTender = await createTender(guarded.em(), guardedWorld);
      const token = await tokenFor(guarded, Role.BROKER, { brokerCompanyId: guardedWorld.brokers[0].id });
      const port = new URL(receiver.url()).port;
      const create = await fetch(`${guarded.url}/integration/v1/webhook-endpoints`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `http://localhost:${port}/rebound`, event_types: ['tender.status_changed'] }),
      });
      expect(create.status).toBe(201);
      const { _id } = await json(create);
      const { body } = await graphql(guarded, token, 'mutation($t: ID!) { closeTender(tenderId: $t, reason: "done") { status } }', {
        t: guardedTender.id,
      });
      expect(body.errors).toBeUndefined();
      const failed = await waitFor('the refusal', async () => {
        const log = await json(
          await fetch(`${guarded.url}/integration/v1/webhook-endpoints/${_id}/deliveries`, {
            headers: { authorization: `Bearer ${token}` },
          }),
        );
        return log.payload[0]?.status === 'FAILED' && log.payload[0];
      });
      expect(failed).toMatchObject({ attempts: 1, last_status_code: null, last_error: 'the endpoint address is not allowed' });
      expect(receiver.received('/rebound')).toEqual([]);
    } finally {
      await guarded.close();
    }
  });

  it('holds the limit of 10 endpoints per client under concurrent registrations: 12 at once create exactly 10, the rest are a CONFLICT', async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        rest('POST', '/integration/v1/webhook-endpoints', broker, { url: receiver.url(`/race-${i}`), event_types: BROKER_EVENTS }),
      ),
    );
    expect(answers.map(({ status }) => status).sort()).toEqual([...Array(10).fill(201), 409, 409]);
    expect((await rest('GET', '/integration/v1/webhook-endpoints', broker)).body).toHaveLength(10);
  });

  it('refuses event types the client would never receive (a broker-only event for an insurer), naming /event_types', async () => {
    sims = scene.closes(await startSimulatedInsurers(scene.gateway, [{ name: 'Anchor Insurance' }]));
    const insurerToken = await tokenFor(scene.gateway, Role.INSURER, { insurerId: sims.insurers[0].id });
    const answer = await rest('POST', '/integration/v1/webhook-endpoints', insurerToken, {
      url: receiver.url(),
      event_types: ['tender.status_changed', 'quote.received'],
    });
    expect(answer.status).toBe(400);
    expect(answer.body.errors[0]).toEqual({ pointer: '/event_types', message: expect.stringContaining('quote.received') });
  });
});
