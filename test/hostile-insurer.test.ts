import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { loadConfig, ConfigError } from '../src/platform/config';
import { Insurer } from '../src/insurers';
import { QuoteOption, QuoteRequest, QuoteRequestStatus } from '../src/quotes';
import type { Tender } from '../src/tenders';
import { createTender, createWorld } from './helpers/fixtures';
import { graphql, startGateway, TEST_JWT_SECRET, tokenFor, type Gateway } from './helpers/gateway';
import { HUGE_BYTES, startHostileInsurers, type HostileInsurers, type Misbehaviour } from './helpers/hostile-insurer';
import { startSimulatedInsurers, waitFor, type SimulatedInsurers } from './helpers/simulator';
import { CALLBACK_PATH } from '../src/api/rest/quote-callback.routes';

const REQUEST_QUOTES = `mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id status insurer { id } } }`;
const QUOTE_REQUESTS = `query($tenderId: ID!) {
  quoteRequests(tenderId: $tenderId) {
    id status attempts lastError lastErrorDetail failureReason failureDetail quoteNote insurerReference insurer { id name }
    options { insuranceSum deductible premium premiumWithTax }
  } }`;
const FINAL = ['QUOTED', 'DECLINED', 'FAILED', 'CANCELLED'];
const LIMITS = [{ insuranceSum: 1_000_000, deductible: 10_000 }];

async function requestQuotes(gateway: Gateway, token: string, tender: Tender, insurerIds: string[]) {
  const { body } = await graphql(gateway, token, REQUEST_QUOTES, {
    input: { tenderId: tender.id, insurerIds, limits: LIMITS, riskInformation: { typeOfBusiness: 'Software' } },
  });
  expect(body.errors).toBeUndefined();
}

async function quoteRequests(gateway: Gateway, token: string, tender: Tender): Promise<any[]> {
  const { status, body } = await graphql(gateway, token, QUOTE_REQUESTS, { tenderId: tender.id });
  expect(status).toBe(200);
  expect(body.errors).toBeUndefined();
  return body.data.quoteRequests;
}

/**
 * The real outbox against one hostile insurer server: every misbehaviour at once, with a healthy insurer in
 * the same outbox, four dispatcher slots, 1 s deadlines and four attempts per step.
 */
describe('the outbox against a hostile insurer system', () => {
  const behaviours: Record<string, Misbehaviour> = {
    healthy: 'healthy',
    'trickle-1': 'trickle',
    'trickle-2': 'trickle',
    'trickle-3': 'trickle',
    never: 'never',
    huge: 'huge',
    redirect: 'redirect',
    'nul-ack': 'nul-ack',
    'nul-error': 'nul-error',
    'nul-body': 'nul-body',
    'absurd-premium': 'absurd-premium',
    'wrong-id': 'wrong-id',
    'unrequested-option': 'unrequested-option',
    storm: 'storm',
  };
  const slow = ['trickle-1', 'trickle-2', 'trickle-3', 'never'];
  let gateway: Gateway;
  let hostile: HostileInsurers;
  let tender: Tender;
  let internal: string;
  let broker: string;
  let bySlug: Record<string, any>;
  let peakRssGrowth = 0;
  let slowStillOpenWhenHealthyQuoted = -1;
  let healthyQuotedAfterMs = Infinity;

  beforeAll(async () => {
    gateway = await startGateway({ env: { QUOTE_CONCURRENCY: '4', RATE_LIMIT_PER_MINUTE: '100000' } });
    const world = await createWorld(gateway.em());
    tender = await createTender(gateway.em(), world);
    broker = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
    internal = await tokenFor(gateway, Role.INTERNAL);
    hostile = await startHostileInsurers(gateway, behaviours);
    const slugOf = new Map(Object.entries(hostile.insurers).map(([slug, insurer]) => [insurer.id, slug]));

    global.gc?.();
    const baseline = process.memoryUsage().rss;
    const sampler = setInterval(() => (peakRssGrowth = Math.max(peakRssGrowth, process.memoryUsage().rss - baseline)), 20);
    const started = Date.now();
    try {
      await requestQuotes(
        gateway,
        broker,
        tender,
        Object.values(hostile.insurers).map((insurer) => insurer.id),
      );
      const requests = await waitFor(
        'every request to settle',
        async () => {
          const all = await quoteRequests(gateway, internal, tender);
          const healthy = all.find((request) => slugOf.get(request.insurer.id) === 'healthy');
          if (healthy?.status === 'QUOTED' && slowStillOpenWhenHealthyQuoted < 0) {
            healthyQuotedAfterMs = Date.now() - started;
            slowStillOpenWhenHealthyQuoted = all.filter(
              (request) => slow.includes(slugOf.get(request.insurer.id)!) && !FINAL.includes(request.status),
            ).length;
          }
          return all.every((request) => FINAL.includes(request.status)) && all;
        },
        60_000,
      );
      bySlug = Object.fromEntries(requests.map((request) => [slugOf.get(request.insurer.id), request]));
    } finally {
      clearInterval(sampler);
    }
  }, 90_000);

  afterAll(async () => {
    await hostile?.close();
    await gateway?.close();
  });

  it('a healthy insurer is quoted within seconds while trickling and silent insurers still hold attempts', () => {
    expect(bySlug.healthy).toMatchObject({ status: 'QUOTED', lastError: null });
    expect(bySlug.healthy.options).toEqual([{ insuranceSum: 1_000_000, deductible: 10_000, premium: 1000, premiumWithTax: 1190 }]);
    expect(healthyQuotedAfterMs).toBeLessThan(10_000);
    expect(slowStillOpenWhenHealthyQuoted).toBeGreaterThanOrEqual(3);
  });

  it('an insurer trickling its body one byte at a time is cut off at the deadline, retried, then FAILED as timed out', () => {
    for (const slug of ['trickle-1', 'trickle-2', 'trickle-3']) {
      expect(bySlug[slug]).toMatchObject({ status: 'FAILED', attempts: 4, failureReason: 'insurer timed out (gave up after 4 attempts)' });
      expect(hostile.stats(slug).posts).toBe(4);
      // Each attempt was closed by the gateway at its 1 s deadline: a few bytes (4 a second), not a slot held for
      // ever; the bound leaves room for a loaded machine's late timers.
      expect(hostile.stats(slug).closedEarly).toBe(4);
      expect(hostile.stats(slug).bytesWritten).toBeLessThan(4 * 20);
    }
    expect(bySlug.never).toMatchObject({ status: 'FAILED', failureReason: 'insurer timed out (gave up after 4 attempts)' });
  });

  it('a 400 MB chunked answer is refused after about 1 MiB is read, the connection closed, memory bounded', () => {
    expect(bySlug.huge).toMatchObject({ status: 'FAILED', attempts: 1, failureReason: 'insurer answer too large' });
    const { bytesWritten, closedEarly } = hostile.stats('huge');
    expect(closedEarly).toBe(1);
    expect(bytesWritten).toBeLessThan(16 * 1024 * 1024);
    expect(bytesWritten).toBeLessThan(HUGE_BYTES / 20);
    expect(peakRssGrowth).toBeLessThan(200 * 1024 * 1024);
  });

  it('a redirect is not followed: FAILED at once with the status as reason', () => {
    expect(bySlug.redirect).toMatchObject({ status: 'FAILED', attempts: 1, failureReason: 'insurer answered 302' });
    expect(bySlug.redirect.failureDetail).toMatch(/redirect to .*redirect-target.* not followed/);
    expect(hostile.stats('redirect-target').posts).toBe(0);
  });

  it('NUL characters in an acknowledgement id, an error body or a non-JSON body end the request FAILED after one attempt', () => {
    expect(bySlug['nul-ack']).toMatchObject({
      status: 'FAILED',
      attempts: 1,
      failureReason: 'insurer sent an invalid acknowledgement',
      insurerReference: null,
    });
    expect(bySlug['nul-error']).toMatchObject({ status: 'FAILED', attempts: 1, failureReason: 'insurer answered 400' });
    expect(bySlug['nul-body']).toMatchObject({ status: 'FAILED', attempts: 1, failureReason: 'insurer sent an invalid acknowledgement' });
    // Internal users see the insurer's text with the control characters escaped.
    expect(bySlug['nul-error'].failureDetail).toContain('bad\\u0000request');
    for (const slug of ['nul-ack', 'nul-error', 'nul-body']) expect(hostile.stats(slug).posts).toBe(1);
  });

  it('a 5xx storm is retried up to the attempts, then FAILED with the public reason', () => {
    expect(bySlug.storm).toMatchObject({ status: 'FAILED', attempts: 4, failureReason: 'insurer answered 503 (gave up after 4 attempts)' });
    expect(hostile.stats('storm').posts).toBe(4);
  });

  it('an absurd premium or a quote for another id is refused as an invalid quote; nothing is stored and every read answers', async () => {
    expect(bySlug['absurd-premium']).toMatchObject({ status: 'FAILED', failureReason: 'insurer sent an invalid quote', options: [] });
    expect(bySlug['absurd-premium'].failureDetail).toMatch(/premium must be an amount of at least 0.01 \(a cent\) up to 1000000000000000/);
    expect(bySlug['wrong-id']).toMatchObject({ status: 'FAILED', failureReason: 'insurer sent an invalid quote', options: [] });
    expect(await gateway.em().count(QuoteOption, { quoteRequest: { $in: [bySlug['absurd-premium'].id, bySlug['wrong-id'].id] } })).toBe(0);
    const proposal = await graphql(
      gateway,
      broker,
      'query($id: ID!) { proposal(tenderId: $id) { entries { quoteRequest { status options { premiumWithTax } } } cheapest { option { premiumWithTax } } } }',
      { id: tender.id },
    );
    expect(proposal.status).toBe(200);
    expect(proposal.body.errors).toBeUndefined();
    expect(proposal.body.data.proposal.cheapest).toEqual([{ option: { premiumWithTax: 1190 } }]);
  });

  it('an option for a limit that was not requested is dropped and noted for internal users only', async () => {
    expect(bySlug['unrequested-option']).toMatchObject({
      status: 'QUOTED',
      options: [{ insuranceSum: 1_000_000, deductible: 10_000, premium: 1000, premiumWithTax: 1190 }],
    });
    expect(bySlug['unrequested-option'].quoteNote).toBe('dropped 1 option(s) for limits that were not requested: 123/0');
    const seenByBroker = (await quoteRequests(gateway, broker, tender)).find((request) => request.id === bySlug['unrequested-option'].id);
    expect(seenByBroker).toMatchObject({ quoteNote: null, lastErrorDetail: null, failureDetail: null });
  });

  it('brokers see only the fixed vocabulary of reasons, never insurer text or database errors', async () => {
    const vocabulary =
      /^(insurer timed out|insurer unreachable|insurer answered \d{3}|insurer answer too large|insurer sent an invalid acknowledgement|insurer sent an invalid quote|insurer address not allowed|internal error|tender closed)( \(gave up after \d+ attempts\))?$/;
    for (const request of await quoteRequests(gateway, broker, tender)) {
      if (request.failureReason !== null) expect(request.failureReason).toMatch(vocabulary);
      if (request.lastError !== null) expect(request.lastError).toMatch(vocabulary);
      expect([request.lastErrorDetail, request.failureDetail, request.quoteNote]).toEqual([null, null, null]);
    }
  });
});

describe('the dispatcher slots', () => {
  let gateway: Gateway;
  let hostile: HostileInsurers;

  beforeAll(async () => {
    gateway = await startGateway({
      env: { QUOTE_CONCURRENCY: '4', QUOTE_CONCURRENCY_PER_INSURER: '2', QUOTE_TIMEOUT_MS: '15000', QUOTE_LEASE_MS: '30000' },
    });
    hostile = await startHostileInsurers(gateway, { never: 'never', healthy: 'healthy' });
  });

  afterAll(async () => {
    await hostile?.close();
    await gateway?.close();
  });

  it('an insurer that never answers holds at most its share of the slots: another insurer is quoted before its first timeout', async () => {
    const world = await createWorld(gateway.em());
    const broker = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
    const internal = await tokenFor(gateway, Role.INTERNAL);
    for (let i = 0; i < 6; i++) await requestQuotes(gateway, broker, await createTender(gateway.em(), world), [hostile.insurers.never.id]);
    const tender = await createTender(gateway.em(), world);
    const started = Date.now();
    await requestQuotes(gateway, broker, tender, [hostile.insurers.healthy.id]);
    await waitFor(
      'the healthy insurer to be quoted',
      async () => (await quoteRequests(gateway, internal, tender))[0].status === 'QUOTED',
      15_000,
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    // Six requests wait for the silent insurer; two of them, its share, were sent.
    expect(hostile.stats('never').posts).toBe(2);
  }, 30_000);
});

describe('a burst of callbacks from one insurer', () => {
  let gateway: Gateway;
  let simulated: SimulatedInsurers;

  beforeAll(async () => {
    // No polls to fall back on: only the dispatcher's wake-ups can fetch these quotes within the test.
    gateway = await startGateway({ env: { QUOTE_CONCURRENCY_PER_INSURER: '2', QUOTE_POLL_INTERVAL_MS: '600000' } });
    simulated = await startSimulatedInsurers(gateway, [{ name: 'Burst Insurance', behaviour: 'silent' }]);
  });

  afterAll(async () => {
    await simulated?.close();
    await gateway?.close();
  });

  it('callbacks that arrive while their insurer holds its whole share are each fetched as its slots free: every quote stored once', async () => {
    const [insurer] = simulated.insurers;
    const world = await createWorld(gateway.em());
    const broker = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
    const tenders: Tender[] = [];
    for (let i = 0; i < 10; i++) tenders.push(await createTender(gateway.em(), world));
    for (const tender of tenders) await requestQuotes(gateway, broker, tender, [insurer.id]);
    const acknowledged = await waitFor('every request to be acknowledged', async () => {
      const requests = await gateway.em().find(QuoteRequest, { insurer: insurer.id });
      return (
        requests.length === tenders.length && requests.every((request) => request.status === QuoteRequestStatus.PROCESSING) && requests
      );
    });

    const token = await tokenFor(gateway, Role.INSURER, { insurerId: insurer.id });
    const answers = await Promise.all(
      acknowledged.map((request) =>
        fetch(`${gateway.url}${CALLBACK_PATH}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ quote_request_id: request.insurerReference }),
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(acknowledged.map(() => 202));

    await waitFor('every quote to be stored', async () => {
      const requests = await gateway.em().find(QuoteRequest, { insurer: insurer.id });
      return requests.every((request) => request.status === QuoteRequestStatus.QUOTED);
    });
    const options = await gateway.em().find(QuoteOption, { quoteRequest: { insurer: insurer.id } });
    expect(options.map((option) => option.quoteRequest.id).sort()).toEqual(acknowledged.map((request) => request.id).sort());
    expect(simulated.simulator.stats(simulated.slugs[0]).fetches).toBe(tenders.length);
  }, 30_000);
});

describe('the insurer URL allow-list (SSRF guard)', () => {
  const CREATE = 'mutation($input: CreateInsurerInput!) { createInsurer(input: $input) { id } }';
  let gateway: Gateway | undefined;
  let hostile: HostileInsurers | undefined;

  afterAll(async () => {
    await hostile?.close();
    await gateway?.close();
  });

  it('refuses malformed INSURER_URL_ALLOW entries at start', () => {
    for (const entry of ['ftp://files.example', 'under score.example', '10.0.0.0/99']) {
      expect(() => loadConfig({ JWT_SECRET: TEST_JWT_SECRET, INSURER_URL_ALLOW: entry }), entry).toThrow(ConfigError);
    }
  });

  it('in production, loopback, private and link-local insurer URLs are refused at creation and at call time', async () => {
    gateway = await startGateway({ env: { NODE_ENV: 'production' } });
    const internal = await tokenFor(gateway, Role.INTERNAL);
    for (const url of [
      'http://127.0.0.1:8080/q',
      'http://10.1.2.3/q',
      'http://169.254.169.254/latest',
      'http://[::1]:80/q',
      'http://192.168.0.10/q',
    ]) {
      const { body } = await graphql(gateway, internal, CREATE, { input: { name: `Insurer ${url}`, quoteApiUrl: url } });
      expect(body.errors?.[0].extensions, url).toMatchObject({ code: 'BAD_USER_INPUT', errors: [{ parameter: 'quoteApiUrl' }] });
    }
    expect(
      (await graphql(gateway, internal, CREATE, { input: { name: 'Public Insurer', quoteApiUrl: 'https://quotes.insurer.example/api' } }))
        .body.errors,
    ).toBeUndefined();

    // Registered before the rule (or pointing at a name that resolves to loopback): refused before connecting.
    hostile = await startHostileInsurers(gateway, { 'behind-a-name': 'healthy' });
    const em = gateway.em();
    const insurer = await em.findOneOrFail(Insurer, { id: hostile.insurers['behind-a-name'].id });
    insurer.quoteApiUrl = insurer.quoteApiUrl!.replace('127.0.0.1', 'localhost');
    await em.flush();
    const world = await createWorld(gateway.em());
    const tender = await createTender(gateway.em(), world);
    const broker = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
    await requestQuotes(gateway, broker, tender, [insurer.id]);
    const [request] = await waitFor('the request to fail', async () => {
      const requests = await quoteRequests(gateway!, internal, tender);
      return requests[0]?.status === 'FAILED' && requests;
    });
    expect(request).toMatchObject({ attempts: 1, failureReason: 'insurer address not allowed' });
    expect(request.failureDetail).toMatch(/localhost resolves to (127\.0\.0\.1|::1), which is not allowed/);
    expect(hostile.stats('behind-a-name').posts).toBe(0);
  });

  it('listed addresses and hosts are allowed, everything else is refused at creation', async () => {
    const listed = await startGateway({ env: { NODE_ENV: 'production', INSURER_URL_ALLOW: '127.0.0.1, *.insurer.example' } });
    try {
      const internal = await tokenFor(listed, Role.INTERNAL);
      const create = (name: string, quoteApiUrl: string) => graphql(listed, internal, CREATE, { input: { name, quoteApiUrl } });
      expect((await create('Loopback', 'http://127.0.0.1:9/insurers/x')).body.errors).toBeUndefined();
      expect((await create('Listed', 'https://quotes.insurer.example/v1')).body.errors).toBeUndefined();
      for (const url of ['https://insurer.example.evil.test/v1', 'https://other.example/v1', 'http://10.0.0.1/v1']) {
        expect((await create(`Refused ${url}`, url)).body.errors?.[0].extensions.code, url).toBe('BAD_USER_INPUT');
      }
      // A listed loopback address is called: the real outbox quotes from it.
      const hostileListed = await startHostileInsurers(listed, { allowed: 'healthy' });
      try {
        const world = await createWorld(listed.em());
        const tender = await createTender(listed.em(), world);
        const broker = await tokenFor(listed, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
        await requestQuotes(listed, broker, tender, [hostileListed.insurers.allowed.id]);
        await waitFor('the quote', async () => (await quoteRequests(listed, broker, tender))[0]?.status === 'QUOTED');
      } finally {
        await hostileListed.close();
      }
    } finally {
      await listed.close();
    }
  });
});

/** Money is shown to the cent: a premium the proposal would show as 0.00 is no quote. */
describe('sub-cent premiums from a real insurer system', () => {
  let gateway: Gateway;
  let hostile: HostileInsurers;
  let tender: Tender;
  let internal: string;
  let broker: string;

  beforeAll(async () => {
    gateway = await startGateway({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    const world = await createWorld(gateway.em());
    tender = await createTender(gateway.em(), world);
    broker = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
    internal = await tokenFor(gateway, Role.INTERNAL);
    hostile = await startHostileInsurers(gateway, { healthy: 'healthy', tiny: 'tiny-premium', 'sub-cent': 'sub-cent-premium' });
    await requestQuotes(
      gateway,
      broker,
      tender,
      Object.values(hostile.insurers).map((insurer) => insurer.id),
    );
    await waitFor('every request to settle', async () =>
      (await quoteRequests(gateway, internal, tender)).every((request) => FINAL.includes(request.status)),
    );
  }, 60_000);

  afterAll(async () => {
    await hostile?.close();
    await gateway?.close();
  });

  it('a premium of 5e-324 or 0.001 is an invalid quote: FAILED, nothing stored, the detail for internal users only, and not the cheapest', async () => {
    const slugOf = new Map(Object.entries(hostile.insurers).map(([slug, insurer]) => [insurer.id, slug]));
    const asInternal = Object.fromEntries(
      (await quoteRequests(gateway, internal, tender)).map((request) => [slugOf.get(request.insurer.id), request]),
    );
    for (const slug of ['tiny', 'sub-cent']) {
      expect(asInternal[slug], slug).toMatchObject({
        status: 'FAILED',
        attempts: 1,
        failureReason: 'insurer sent an invalid quote',
        options: [],
      });
      expect(asInternal[slug].failureDetail).toMatch(/option 0: premium must be an amount of at least 0.01 \(a cent\)/);
    }
    expect(await gateway.em().count(QuoteOption, { quoteRequest: { $in: [asInternal.tiny.id, asInternal['sub-cent'].id] } })).toBe(0);
    const asBroker = await quoteRequests(gateway, broker, tender);
    for (const request of asBroker.filter((r) => r.status === 'FAILED')) expect(request.failureDetail).toBeNull();
    const proposal = await graphql(
      gateway,
      broker,
      'query($id: ID!) { proposal(tenderId: $id) { cheapest { insurer { name } option { premium premiumWithTax cheapest } } } }',
      { id: tender.id },
    );
    expect(proposal.body.errors).toBeUndefined();
    expect(proposal.body.data.proposal.cheapest).toEqual([
      { insurer: { name: 'Hostile healthy' }, option: { premium: 1000, premiumWithTax: 1190, cheapest: true } },
    ]);
  });
});
