import { describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { EarlyCallback, QuoteOption, QuoteRequest, QuoteRequestStatus } from '../src/quotes';
import { EARLY_CALLBACK_TTL_MS } from '../src/quotes/callback/quote-callback.service';
import { TenderStatus, TenderInvitation } from '../src/tenders';
import { LIMITS } from '../src/platform/validation/rules';
import type { SimBehaviour } from '../src/insurer-sim/insurer-sim';
import { CALLBACK_PATH as SIM_CALLBACK_PATH } from '../src/insurer-sim/insurer-sim';
import { CALLBACK_PATH } from '../src/api/rest/quote-callback.routes';
import { createTender } from './helpers/fixtures';
import { PATIENT_RETRIES_ENV, getJson, graphql, json, requestToken, tokenFor } from './helpers/gateway';
import { withGateway, type Scene } from './helpers/scene';
import { startHostileInsurers, type HostileInsurers } from './helpers/hostile-insurer';
import { startSimulatedInsurers, waitFor, type SimulatedInsurers } from './helpers/simulator';

const CALLBACK = '/aggregation-gateway/v1/public/producer-integration/quotes/available';
const FINAL = ['QUOTED', 'DECLINED', 'FAILED', 'CANCELLED'];

const REQUEST_QUOTES = `mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id status insurer { id } } }`;
const QUOTE_REQUESTS = `query($tenderId: ID!) {
  quoteRequests(tenderId: $tenderId) {
    id status attempts lastError failureReason insurerReference insurer { id name }
    options { insuranceSum deductible premium premiumWithTax cheapest }
  } }`;

let broker: string;
let sims: SimulatedInsurers | undefined;
let hostile: HostileInsurers | undefined;

async function simulate(entries: { name: string; pricingFactor?: number; behaviour?: SimBehaviour }[]) {
  sims = scene.closes(await startSimulatedInsurers(scene.gateway, entries));
  return sims;
}

async function requestQuotes(insurerIds: string[], limits = [{ insuranceSum: 1_000_000, deductible: 10_000 }]) {
  const { body } = await graphql(scene.gateway, broker, REQUEST_QUOTES, {
    input: {
      tenderId: scene.tender.id,
      insurerIds,
      limits,
      riskInformation: { turnover: { amount: 5_000_000, currency: 'EUR' }, typeOfBusiness: 'Software', websiteUrl: 'https://acme.example' },
    },
  });
  expect(body.errors).toBeUndefined();
  return body.data.requestQuotes as { id: string; status: string }[];
}

async function quoteRequests(token = broker) {
  const { body } = await graphql(scene.gateway, token, QUOTE_REQUESTS, { tenderId: scene.tender.id });
  expect(body.errors).toBeUndefined();
  return body.data.quoteRequests as any[];
}

function postCallback(token: string, id: string) {
  return fetch(`${scene.gateway.url}${CALLBACK}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ quote_request_id: id }),
  });
}

/** Waits until every quote request of the tender reached a final state. */
const settled = (timeoutMs?: number) =>
  waitFor(
    'quote requests to settle',
    async () => {
      const requests = await quoteRequests();
      return requests.every((request) => FINAL.includes(request.status)) && requests;
    },
    timeoutMs,
  );

const scene = withGateway({ tender: true, setUp: setUpScene });

async function setUpScene(scene: Scene) {
  broker = await scene.token(Role.BROKER);
}

describe('quotation integration end to end', () => {
  it('three simulated insurers acknowledge, call back, get fetched, and the proposal compares them', async () => {
    const { insurers, simulator, slugs } = await simulate([
      { name: 'Anchor Insurance', pricingFactor: 1 },
      { name: 'Beacon Insurance', pricingFactor: 1.2 },
      { name: 'Compass Insurance', pricingFactor: 0.9 },
    ]);
    const created = await requestQuotes(
      insurers.map((insurer) => insurer.id),
      [
        { insuranceSum: 1_000_000, deductible: 10_000 },
        { insuranceSum: 2_000_000, deductible: 0 },
      ],
    );
    expect(created.map((request) => request.status)).toEqual(['QUEUED', 'QUEUED', 'QUEUED']);

    const requests = await settled();
    expect(requests.map((request) => request.status)).toEqual(['QUOTED', 'QUOTED', 'QUOTED']);
    for (const slug of slugs)
      expect(simulator.stats(slug)).toEqual({
        posts: 1,
        quotes: 1,
        callbacks: 1,
        callbackFailures: 0,
        fetches: 1,
        webhooks: 0,
        webhookRejections: 0,
      });

    const { body } = await graphql(
      scene.gateway,
      broker,
      `
        query ($id: ID!) {
          proposal(tenderId: $id) {
            taxRate
            entries {
              insurer {
                name
              }
              quoteRequest {
                status
                options {
                  insuranceSum
                  deductible
                  premium
                  premiumWithTax
                  cheapest
                }
              }
            }
            cheapest {
              insuranceSum
              deductible
              insurer {
                name
              }
              option {
                premium
                premiumWithTax
              }
            }
          }
        }
      `,
      { id: scene.tender.id },
    );
    const proposal = body.data.proposal;
    expect(proposal.taxRate).toBe(0.19);
    // 150 + sum × 0.25 % × factor × (1 − min(50 %, 5 × deductible / sum)); with tax × 1.19, to the cent
    const premiums = proposal.entries.map((entry: any) => [
      entry.insurer.name,
      entry.quoteRequest.options.map((o: any) => [o.premium, o.premiumWithTax, o.cheapest]),
    ]);
    expect(premiums).toEqual([
      [
        'Anchor Insurance',
        [
          [2525, 3004.75, false],
          [5150, 6128.5, false],
        ],
      ],
      [
        'Beacon Insurance',
        [
          [3000, 3570, false],
          [6150, 7318.5, false],
        ],
      ],
      [
        'Compass Insurance',
        [
          [2287.5, 2722.13, true],
          [4650, 5533.5, true],
        ],
      ],
    ]);
    expect(proposal.cheapest).toEqual([
      {
        insuranceSum: 1_000_000,
        deductible: 10_000,
        insurer: { name: 'Compass Insurance' },
        option: { premium: 2287.5, premiumWithTax: 2722.13 },
      },
      { insuranceSum: 2_000_000, deductible: 0, insurer: { name: 'Compass Insurance' }, option: { premium: 4650, premiumWithTax: 5533.5 } },
    ]);

    // Tender.proposal is the same overview; the invited insurers now see the tender.
    const viaTender = await graphql(
      scene.gateway,
      broker,
      'query($id: ID!) { tender(id: $id) { proposal { cheapest { insurer { name } } } } }',
      {
        id: scene.tender.id,
      },
    );
    expect(viaTender.body.data.tender.proposal.cheapest).toHaveLength(2);
    const insurerToken = await tokenFor(scene.gateway, Role.INSURER, { insurerId: insurers[0].id });
    expect((await getJson(scene.gateway, `/public/v1/tenders/${scene.tender.id}`, insurerToken)).status).toBe(200);
  });

  it('an insurer sees only its own quote request and options in the proposal', async () => {
    const { insurers } = await simulate([{ name: 'Anchor Insurance' }, { name: 'Beacon Insurance' }]);
    await requestQuotes(insurers.map((insurer) => insurer.id));
    await settled();
    const token = await tokenFor(scene.gateway, Role.INSURER, { insurerId: insurers[1].id });
    const { body } = await graphql(
      scene.gateway,
      token,
      'query($id: ID!) { proposal(tenderId: $id) { entries { insurer { name } } cheapest { insurer { name } } } }',
      { id: scene.tender.id },
    );
    expect(body.data.proposal.entries).toEqual([{ insurer: { name: 'Beacon Insurance' } }]);
    expect(body.data.proposal.cheapest.every((c: any) => c.insurer.name === 'Beacon Insurance')).toBe(true);
    expect((await quoteRequests(token)).map((r) => r.insurer.name)).toEqual(['Beacon Insurance']);
  });

  it('a declined quote ends DECLINED with no options, not FAILED', async () => {
    const { insurers } = await simulate([{ name: 'Anchor Insurance', behaviour: 'decline' }]);
    await requestQuotes([insurers[0].id]);
    const [request] = await settled();
    expect(request).toMatchObject({ status: 'DECLINED', options: [], failureReason: null });
  });
});

describe('requestQuotes validation and access', () => {
  it('concurrent requests for one tender all succeed for distinct insurers, each invited once; of two at once for one insurer, one is refused with CONFLICT', async () => {
    const { insurers } = await simulate([{ name: 'Anchor Insurance' }, { name: 'Beacon Insurance' }, { name: 'Compass Insurance' }]);
    const results = await Promise.all(
      [...insurers, insurers[0]].map((insurer) =>
        graphql(scene.gateway, broker, REQUEST_QUOTES, {
          input: {
            tenderId: scene.tender.id,
            insurerIds: [insurer.id],
            limits: [{ insuranceSum: 1000, deductible: 0 }],
            riskInformation: {},
          },
        }),
      ),
    );
    const refused = results.filter(({ body }) => body.errors !== undefined);
    expect(refused.map(({ status, body }) => [status, body.errors[0].extensions.code])).toEqual([[409, 'CONFLICT']]);
    expect(refused[0].body.errors[0].message).toContain('Anchor Insurance');
    expect(await scene.gateway.em().count(TenderInvitation, { tender: scene.tender.id })).toBe(3);
    expect((await settled()).length).toBe(3);
  });

  it('a repeated request for an insurer whose request is still open is refused with CONFLICT and queues nothing; once it has ended, the insurer may be asked again', async () => {
    const { insurers, simulator, slugs } = await simulate([
      { name: 'Anchor Insurance', behaviour: 'silent' },
      { name: 'Beacon Insurance' },
    ]);
    await requestQuotes([insurers[0].id]);
    const open = await waitFor('the acknowledgement', async () => (await quoteRequests()).find((r) => r.status === 'PROCESSING'));
    const again = await graphql(scene.gateway, broker, REQUEST_QUOTES, {
      input: {
        tenderId: scene.tender.id,
        insurerIds: [insurers[1].id, insurers[0].id],
        limits: [{ insuranceSum: 1000, deductible: 0 }],
        riskInformation: {},
      },
    });
    expect(again.status).toBe(409);
    expect(again.body.errors[0].extensions).toMatchObject({ code: 'CONFLICT', errors: [{ parameter: 'insurerIds' }] });
    expect((await quoteRequests()).length).toBe(1);
    // The silent insurer calls back after all: its request ends QUOTED, and the insurer may be asked again.
    expect(
      (await postCallback(await tokenFor(scene.gateway, Role.INSURER, { insurerId: insurers[0].id }), open.insurerReference)).status,
    ).toBe(202);
    expect((await settled()).map((r) => r.status)).toEqual(['QUOTED']);
    simulator.setBehaviour(slugs[0], 'quote');
    await requestQuotes([insurers[0].id]);
    expect((await settled()).length).toBe(2);
  });

  it(`a tender holds at most ${LIMITS.quoteRequestsPerTender} quote requests: a request beyond them is refused with CONFLICT and queues nothing`, async () => {
    const { insurers } = await simulate(
      Array.from({ length: LIMITS.quoteRequestsPerTender + 1 }, (_, i) => ({
        name: `Insurer ${String(i).padStart(2, '0')}`,
        behaviour: 'decline' as const,
      })),
    );
    const input = (ids: string[]) => ({
      input: { tenderId: scene.tender.id, insurerIds: ids, limits: [{ insuranceSum: 1000, deductible: 0 }], riskInformation: {} },
    });
    expect(
      (await graphql(scene.gateway, broker, REQUEST_QUOTES, input(insurers.slice(0, LIMITS.quoteRequestsPerTender).map((i) => i.id)))).body
        .errors,
    ).toBeUndefined();
    await settled();
    const beyond = await graphql(scene.gateway, broker, REQUEST_QUOTES, input([insurers[LIMITS.quoteRequestsPerTender].id]));
    expect(beyond.status).toBe(409);
    expect(beyond.body.errors[0]).toMatchObject({
      extensions: { code: 'CONFLICT', errors: [{ parameter: 'insurerIds', message: 'at most 0 more insurers for this tender' }] },
    });
    expect(beyond.body.errors[0].message).toContain(`at most ${LIMITS.quoteRequestsPerTender} quote requests`);
    expect(await scene.gateway.em().count(QuoteRequest, { tender: scene.tender.id })).toBe(LIMITS.quoteRequestsPerTender);
  });

  it('refuses bad limits, currencies and URLs field by field, and queues nothing', async () => {
    const { insurers } = await simulate([{ name: 'Anchor Insurance' }]);
    const { body } = await graphql(scene.gateway, broker, REQUEST_QUOTES, {
      input: {
        tenderId: scene.tender.id,
        insurerIds: [insurers[0].id, 'no-such-insurer'],
        limits: [
          { insuranceSum: 0, deductible: -1 },
          { insuranceSum: 100, deductible: 100 },
        ],
        riskInformation: { turnover: { amount: 1, currency: 'EURO' }, websiteUrl: 'javascript:alert(1)' },
      },
    });
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(body.errors[0].extensions.errors.map((e: any) => e.parameter).sort()).toEqual(
      [
        'insurerIds',
        'limits[0].deductible',
        'limits[0].insuranceSum',
        'limits[1].deductible',
        'riskInformation.turnover.currency',
        'riskInformation.websiteUrl',
      ].sort(),
    );
    expect(await quoteRequests()).toEqual([]);
  });

  it("a broker cannot request quotes for another company's tender (NOT_FOUND), an insurer not at all (FORBIDDEN)", async () => {
    const { insurers } = await simulate([{ name: 'Anchor Insurance' }]);
    const other = await tokenFor(scene.gateway, Role.BROKER, { brokerCompanyId: scene.world.brokers[1].id });
    const input = {
      tenderId: scene.tender.id,
      insurerIds: [insurers[0].id],
      limits: [{ insuranceSum: 1000, deductible: 0 }],
      riskInformation: {},
    };
    expect((await graphql(scene.gateway, other, REQUEST_QUOTES, { input })).body.errors[0].extensions.code).toBe('NOT_FOUND');
    const insurer = await tokenFor(scene.gateway, Role.INSURER, { insurerId: insurers[0].id });
    expect((await graphql(scene.gateway, insurer, REQUEST_QUOTES, { input })).body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('failures of the insurer system', () => {
  it('an insurer that is down is retried and quoted once it is up again', async () => {
    // Once the insurer is up again, an attempt on a loaded machine may need more than the fast second.
    await scene.restart({ ...PATIENT_RETRIES_ENV, QUOTE_TIMEOUT_MS: '5000', QUOTE_LEASE_MS: '20000' });
    const sim = await simulate([{ name: 'Anchor Insurance' }]);
    await sim.down();
    await requestQuotes([sim.insurers[0].id]);
    const failing = await waitFor('a failed attempt', async () =>
      (await quoteRequests()).find((r) => r.attempts >= 1 && r.status === 'QUEUED'),
    );
    expect(failing.lastError).toBe('insurer unreachable');
    await sim.up();
    const [request] = await settled(30_000);
    expect(request.status).toBe('QUOTED');
    expect(request.lastError).toBeNull();
  });

  it('5xx answers are retried until the attempts run out, then FAILED with the public reason; the detail only for internal users', async () => {
    const sim = await simulate([{ name: 'Anchor Insurance', behaviour: 'fail' }]);
    await requestQuotes([sim.insurers[0].id]);
    const [request] = await settled();
    expect(request.status).toBe('FAILED');
    expect(request.attempts).toBe(4);
    expect(request.failureReason).toBe('insurer answered 503 (gave up after 4 attempts)');
    expect(sim.simulator.stats(sim.slugs[0]).posts).toBe(4);
    const detail = `query($tenderId: ID!) { quoteRequests(tenderId: $tenderId) { lastErrorDetail failureDetail } }`;
    const internal = await tokenFor(scene.gateway, Role.INTERNAL);
    const [seenInternally] = (await graphql(scene.gateway, internal, detail, { tenderId: scene.tender.id })).body.data.quoteRequests;
    expect(seenInternally.failureDetail).toMatch(/^sending the quotation request: answered 503/);
    expect((await graphql(scene.gateway, broker, detail, { tenderId: scene.tender.id })).body.data.quoteRequests).toEqual([
      { lastErrorDetail: null, failureDetail: null },
    ]);
  });

  it('a timed-out request is sent again with the same Idempotency-Key and quoted once', async () => {
    const sim = await simulate([{ name: 'Anchor Insurance' }]);
    sim.simulator.queueBehaviours(sim.slugs[0], ['timeout']);
    await requestQuotes([sim.insurers[0].id]);
    const [request] = await settled();
    expect(request.status).toBe('QUOTED');
    expect(sim.simulator.stats(sim.slugs[0])).toMatchObject({ posts: 2, quotes: 1 });
  });

  it('an insurer that never answers in time ends FAILED after the attempts, with the timeout as reason', async () => {
    const sim = await simulate([{ name: 'Anchor Insurance', behaviour: 'timeout' }]);
    await requestQuotes([sim.insurers[0].id]);
    const [request] = await settled();
    expect(request.status).toBe('FAILED');
    expect(request.failureReason).toBe('insurer timed out (gave up after 4 attempts)');
  });

  it('a malformed acknowledgement fails at once, with the reason kept', async () => {
    const sim = await simulate([{ name: 'Anchor Insurance', behaviour: 'malformed' }]);
    await requestQuotes([sim.insurers[0].id]);
    const [request] = await settled();
    expect(request).toMatchObject({ status: 'FAILED', attempts: 1 });
    expect(request.failureReason).toBe('insurer sent an invalid acknowledgement');
    expect(sim.simulator.stats(sim.slugs[0]).posts).toBe(1);
  });

  it('a malformed quote fails at once and stores no options', async () => {
    const sim = await simulate([{ name: 'Anchor Insurance', behaviour: 'malformed-quote' }]);
    const [created] = await requestQuotes([sim.insurers[0].id]);
    const [request] = await settled();
    expect(request.status).toBe('FAILED');
    expect(request.failureReason).toBe('insurer sent an invalid quote');
    expect(await scene.gateway.em().count(QuoteOption, { quoteRequest: created.id })).toBe(0);
  });
});

describe('the callback endpoint', () => {
  it('honours a callback that arrives before the acknowledgement', async () => {
    const sim = await simulate([{ name: 'Anchor Insurance', behaviour: 'early-callback' }]);
    await requestQuotes([sim.insurers[0].id]);
    const [request] = await settled();
    expect(request.status).toBe('QUOTED');
    expect(sim.simulator.stats(sim.slugs[0])).toMatchObject({ posts: 1, callbacks: 1, callbackFailures: 0, fetches: 1 });
    expect(await scene.gateway.em().count(EarlyCallback)).toBe(0);
  });

  it('stores one quote when the insurer calls back twice', async () => {
    const sim = await simulate([{ name: 'Anchor Insurance', behaviour: 'callback-twice' }]);
    const [created] = await requestQuotes(
      [sim.insurers[0].id],
      [
        { insuranceSum: 1000, deductible: 0 },
        { insuranceSum: 2000, deductible: 0 },
      ],
    );
    await waitFor('both callbacks', async () => sim.simulator.stats(sim.slugs[0]).callbacks === 2);
    const [request] = await settled();
    expect(request.options).toHaveLength(2);
    expect(await scene.gateway.em().count(QuoteOption, { quoteRequest: created.id })).toBe(2);
    expect(sim.simulator.stats(sim.slugs[0]).callbackFailures).toBe(0);
    expect(sim.simulator.stats(sim.slugs[0]).fetches).toBe(1);
  });

  it("fetches nothing before the callback: a silent insurer's quote waits until the insurer calls back", async () => {
    const sim = await simulate([{ name: 'Anchor Insurance', behaviour: 'silent' }]);
    await requestQuotes([sim.insurers[0].id]);
    const [waiting] = await waitFor('the acknowledgement', async () => {
      const requests = await quoteRequests();
      return requests[0]?.status === 'PROCESSING' && requests;
    });
    await new Promise((resolve) => setTimeout(resolve, 300)); // several dispatcher turns
    expect((await quoteRequests())[0].status).toBe('PROCESSING');
    expect(sim.simulator.stats(sim.slugs[0]).fetches).toBe(0);

    const owner = await tokenFor(scene.gateway, Role.INSURER, { insurerId: sim.insurers[0].id });
    const callback = await fetch(`${scene.gateway.url}${CALLBACK}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${owner}` },
      body: JSON.stringify({ quote_request_id: waiting.insurerReference }),
    });
    expect(callback.status).toBe(202);
    const [request] = await settled();
    expect(request.status).toBe('QUOTED');
    expect(request.options).toHaveLength(1);
    expect(sim.simulator.stats(sim.slugs[0]).fetches).toBe(1);
  });

  it("answers 202 and is idempotent; another insurer's id, or an unknown id, is a 404", async () => {
    const sim = await simulate([{ name: 'Anchor Insurance' }, { name: 'Beacon Insurance' }]);
    await requestQuotes([sim.insurers[0].id]);
    const [request] = await settled();
    const post = (token: string | undefined, body: unknown) =>
      fetch(`${scene.gateway.url}${CALLBACK}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
    const owner = await tokenFor(scene.gateway, Role.INSURER, { insurerId: sim.insurers[0].id });
    const again = await post(owner, { quote_request_id: request.insurerReference });
    expect(again.status).toBe(202);
    expect(await json(again)).toEqual({ status: 'accepted', quote_request_id: request.insurerReference });
    expect((await quoteRequests())[0].options).toHaveLength(1);

    const stranger = await tokenFor(scene.gateway, Role.INSURER, { insurerId: sim.insurers[1].id });
    const foreign = await post(stranger, { quote_request_id: request.insurerReference });
    expect(foreign.status).toBe(404);
    expect((await json(foreign)).code).toBe('NOT_FOUND');
    expect((await post(owner, { quote_request_id: 'Q-never-issued' })).status).toBe(404);
  });

  it('parks no more unknown ids than the insurer has unacknowledged requests: the oldest gives way to the newest', async () => {
    const sim = await simulate([{ name: 'Anchor Insurance', behaviour: 'timeout' }]);
    const owner = await tokenFor(scene.gateway, Role.INSURER, { insurerId: sim.insurers[0].id });
    await requestQuotes([sim.insurers[0].id]); // stays QUEUED (unacknowledged) for seconds
    const post = (id: string) =>
      fetch(`${scene.gateway.url}${CALLBACK}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${owner}` },
        body: JSON.stringify({ quote_request_id: id }),
      });
    expect((await post('Q-maybe-mine')).status).toBe(202);
    expect((await post('Q-maybe-mine')).status).toBe(202);
    expect((await post('Q-another')).status).toBe(202);
    expect((await scene.gateway.em().find(EarlyCallback, {})).map((parked) => parked.insurerReference)).toEqual(['Q-another']);
  });

  it('a stray callback does not block a genuine early callback: the request is quoted', async () => {
    hostile = scene.closes(await startHostileInsurers(scene.gateway, { held: 'hold' }));
    const insurer = hostile.insurers.held;
    const owner = await requestToken(scene.gateway, hostile.credentials.held);
    await requestQuotes([insurer.id]);
    const held = await hostile.held('held'); // the request is in flight, unacknowledged
    expect((await postCallback(owner, 'Q-stray-from-a-bug')).status).toBe(202);
    const genuine = `HX-${held.idempotencyKey}`;
    expect((await postCallback(owner, genuine)).status).toBe(202);
    hostile.release('held', genuine);
    const [request] = await settled();
    expect(request).toMatchObject({ status: 'QUOTED', insurerReference: genuine });
    expect(hostile.stats('held').fetches).toBe(1);
  });

  it('parked callbacks expire: an expired one is swept and counts against nothing', async () => {
    const sim = await simulate([{ name: 'Anchor Insurance', behaviour: 'timeout' }]);
    const owner = await tokenFor(scene.gateway, Role.INSURER, { insurerId: sim.insurers[0].id });
    const em = scene.gateway.em();
    em.create(EarlyCallback, {
      insurer: sim.insurers[0].id,
      insurerReference: 'Q-long-ago',
      receivedAt: new Date(Date.now() - EARLY_CALLBACK_TTL_MS - 1000),
    });
    await em.flush();
    await requestQuotes([sim.insurers[0].id]);
    expect((await postCallback(owner, 'Q-maybe-mine')).status).toBe(202);
    expect((await scene.gateway.em().find(EarlyCallback, {})).map((parked) => parked.insurerReference)).toEqual(['Q-maybe-mine']);
  });

  it('an expired parked callback is not honoured by the acknowledgement that names it; a fresh callback is', async () => {
    hostile = scene.closes(await startHostileInsurers(scene.gateway, { held: 'hold' }));
    const insurer = hostile.insurers.held;
    const owner = await requestToken(scene.gateway, hostile.credentials.held);
    await requestQuotes([insurer.id]);
    const held = await hostile.held('held');
    const reference = `HX-${held.idempotencyKey}`;
    const em = scene.gateway.em();
    em.create(EarlyCallback, {
      insurer: insurer.id,
      insurerReference: reference,
      receivedAt: new Date(Date.now() - EARLY_CALLBACK_TTL_MS - 1000),
    });
    await em.flush();
    hostile.release('held', reference);
    await waitFor('the acknowledgement', async () => (await quoteRequests())[0].status === 'PROCESSING');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await quoteRequests())[0].status).toBe('PROCESSING');
    expect(hostile.stats('held').fetches).toBe(0);
    expect((await postCallback(owner, reference)).status).toBe(202);
    expect((await settled())[0]).toMatchObject({ status: 'QUOTED', insurerReference: reference });
  });

  it('refuses a missing token (401), a broker token (403), bad bodies (400) and other methods (405)', async () => {
    const sim = await simulate([{ name: 'Anchor Insurance' }]);
    const owner = await tokenFor(scene.gateway, Role.INSURER, { insurerId: sim.insurers[0].id });
    const send = (headers: Record<string, string>, body: string) =>
      fetch(`${scene.gateway.url}${CALLBACK}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    expect((await send({}, '{"quote_request_id":"x"}')).status).toBe(401);
    expect((await send({ authorization: `Bearer ${broker}` }, '{"quote_request_id":"x"}')).status).toBe(403);
    for (const body of ['{', '[]', '{"quote_request_id": 7}', '{"quote_request_id":"x","extra":1}', '{}']) {
      expect((await send({ authorization: `Bearer ${owner}` }, body)).status, body).toBe(400);
    }
    expect((await fetch(`${scene.gateway.url}${CALLBACK}`)).status).toBe(405);
  });
});

describe('closing a tender', () => {
  const CLOSE = 'mutation($id: ID!) { closeTender(tenderId: $id, reason: "customer withdrew") { status } }';

  it('cancels its open quote requests with the close: an in-flight acknowledgement and a late callback store nothing', async () => {
    const sim = await simulate([{ name: 'Anchor Insurance', behaviour: 'silent' }]);
    hostile = scene.closes(await startHostileInsurers(scene.gateway, { held: 'hold' }));
    await requestQuotes([sim.insurers[0].id]);
    const [waiting] = await waitFor('the acknowledgement', async () => {
      const requests = await quoteRequests();
      return requests[0]?.status === 'PROCESSING' && requests;
    });
    await requestQuotes([hostile.insurers.held.id]);
    const held = await hostile.held('held'); // QUEUED, in flight under a lease

    expect((await graphql(scene.gateway, broker, CLOSE, { id: scene.tender.id })).body.data.closeTender.status).toBe('CLOSED');
    const closed = await quoteRequests();
    expect(closed.map((request) => [request.status, request.failureReason])).toEqual([
      ['CANCELLED', 'tender closed'],
      ['CANCELLED', 'tender closed'],
    ]);

    // The insurer's answers after the close change nothing.
    hostile.release('held', `HX-${held.idempotencyKey}`);
    const owner = await tokenFor(scene.gateway, Role.INSURER, { insurerId: sim.insurers[0].id });
    expect((await postCallback(owner, waiting.insurerReference)).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 400)); // several dispatcher turns
    const after = await quoteRequests();
    expect(after.map((request) => [request.status, request.insurerReference === null, request.options.length])).toEqual([
      ['CANCELLED', true, 0],
      ['CANCELLED', false, 0],
    ]);
    expect(sim.simulator.stats(sim.slugs[0]).fetches).toBe(0);
    expect(await scene.gateway.em().count(QuoteOption, {})).toBe(0);
  });

  it('a request recorded for a tender that is closed meanwhile is cancelled, not sent', async () => {
    hostile = scene.closes(await startHostileInsurers(scene.gateway, { healthy: 'healthy' }));
    const em = scene.gateway.em();
    const closedTender = await createTender(em, scene.world, { status: TenderStatus.CLOSED });
    em.create(QuoteRequest, {
      tender: closedTender,
      insurer: hostile.insurers.healthy.id,
      limits: [{ insurance_sum: 1000, deductible: 0 }],
      riskInformation: { customer_name: 'Acme GmbH' },
      requestedBy: 'race',
      nextAttemptAt: new Date(),
    });
    await em.flush();
    const request = await waitFor('the cancellation', async () => {
      const found = await scene.gateway.em().findOneOrFail(QuoteRequest, { tender: closedTender.id });
      return found.status === QuoteRequestStatus.CANCELLED && found;
    });
    expect(request.failureReason).toBe('tender closed');
    expect(hostile.stats('healthy').posts).toBe(0);
  });
});

describe('the insurer simulator, an independent peer', () => {
  it('calls back on the path the gateway serves, though it imports nothing of the gateway', () => {
    expect(SIM_CALLBACK_PATH).toBe(CALLBACK_PATH);
  });
});
