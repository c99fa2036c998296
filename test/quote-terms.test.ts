import { describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { QuoteRequest, QuoteRequestStatus } from '../src/quotes';
import { endOfDayIn } from '../src/quotes/quote-answer';
import { Tender, TenderStatus } from '../src/tenders';
import { graphql, tokenFor, graphqlData } from './helpers/gateway';
import { withGateway, type Scene } from './helpers/scene';
import { startScriptedInsurer, type ScriptedInsurer } from './helpers/scripted-insurer';
import { startSimulatedInsurers, waitFor, type SimulatedInsurers } from './helpers/simulator';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver';

const LIMIT = { insurance_sum: 1_000_000, deductible: 10_000 };
const OTHER_LIMIT = { insurance_sum: 2_000_000, deductible: 0 };
const REQUESTS = `query($id: ID!) { quoteRequests(tenderId: $id) {
  id status failureReason failureDetail validUntil currency underwriterReason source insurer { name }
  options { id insuranceSum deductible premium premiumWithTax currency expired cheapest subjectivities { text stage } } } }`;

let broker: string;
let internal: string;
let scripted: ScriptedInsurer | undefined;
let sims: SimulatedInsurers | undefined;
let receiver: WebhookReceiver | undefined;

const scene = withGateway({ webhooks: 'fast', tender: true, start: 'manual', setUp: setUpScene });
const setUp = (env: Record<string, string> = {}) => scene.start(env);

async function setUpScene(scene: Scene) {
  broker = await scene.token(Role.BROKER);
  internal = await scene.token(Role.INTERNAL);
  scripted = scene.closes(await startScriptedInsurer(scene.gateway));
}

const gql = (token: string, query: string, variables?: Record<string, unknown>) => graphqlData(scene.gateway, token, query, variables);

async function requestQuotes(insurerIds: string[], limits = [LIMIT]) {
  await gql(broker, 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }', {
    input: {
      tenderId: scene.tender.id,
      insurerIds,
      limits: limits.map((limit) => ({ insuranceSum: limit.insurance_sum, deductible: limit.deductible })),
      riskInformation: {},
    },
  });
}

/** Asks the scripted insurer for a quote and waits for its acknowledgement; answers its id. */
async function askScripted(limits = [LIMIT]): Promise<string> {
  await requestQuotes([scripted!.insurer.id], limits);
  return waitFor('the acknowledgement', async () => scripted!.ids().at(-1));
}

const requestsAs = async (token: string) => (await gql(token, REQUESTS, { id: scene.tender.id })).quoteRequests as any[];
const scriptedRequest = async (token = broker) =>
  (await requestsAs(token)).find((request) => request.insurer.name === scripted!.insurer.name);
const settledAs = (statuses: string[], token = broker) =>
  waitFor(`the request to be ${statuses.join(' or ')}`, async () => {
    const request = await scriptedRequest(token);
    return statuses.includes(request?.status) && request;
  });

async function register(token: string, path: string, eventTypes: string[]) {
  const response = await fetch(`${scene.gateway.url}/integration/v1/webhook-endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver!.url(path), event_types: eventTypes }),
  });
  expect(response.status, await response.clone().text()).toBe(201);
}

describe('quote terms (spec 2.5, optional)', () => {
  it('a quote with validity, currency and subjectivities shows them; every distinct offer is kept; cheapest is decided per currency', async () => {
    await setUp();
    sims = scene.closes(await startSimulatedInsurers(scene.gateway, [{ name: 'Anchor Insurance', pricingFactor: 1 }]));
    const id = await askScripted([LIMIT, OTHER_LIMIT]);
    await requestQuotes([sims.insurers[0].id], [LIMIT, OTHER_LIMIT]);
    const validDay = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    expect(
      await scripted!.quote(id, {
        valid_until: validDay,
        currency: 'CHF',
        decision: 'QUOTED',
        quote_options: [
          { ...LIMIT, premium: 900, subjectivities: [{ text: 'Multi-factor authentication for remote access', stage: 'PRE_BIND' }] },
          { ...LIMIT, premium: 1200 },
          { ...LIMIT, premium: 1300 }, // the same offer as the one before, dearer: dropped
          {
            ...OTHER_LIMIT,
            premium: 2000,
            subjectivities: [{ text: 'Signed proposal form\u0007\u200b\u2028\u{f0000}', stage: 'POST_BIND' }],
          },
        ],
      }),
    ).toBe(202);
    const request = await settledAs(['QUOTED']);
    const [year, month, day] = validDay.split('-').map(Number);
    expect(request).toMatchObject({
      validUntil: endOfDayIn(year, month, day, 'Europe/Berlin').toISOString(),
      currency: 'CHF',
      underwriterReason: null,
      source: 'API',
    });
    // 23:59:59.999 in Berlin is 22:59:59.999 or 21:59:59.999 UTC, by the season.
    expect(request.validUntil).toMatch(new RegExp(`^${validDay}T2[12]:59:59\\.999Z$`));
    expect(request.options.map((o: any) => [o.insuranceSum, o.premium, o.currency, o.subjectivities])).toEqual([
      [1_000_000, 900, 'CHF', [{ text: 'Multi-factor authentication for remote access', stage: 'PRE_BIND' }]],
      [1_000_000, 1200, 'CHF', []],
      // An insurer's text is kept, what the one text rule refuses shown escaped (a person's would be refused).
      [2_000_000, 2000, 'CHF', [{ text: 'Signed proposal form\\u0007\\u200b\\u2028\\u{f0000}', stage: 'POST_BIND' }]],
    ]);
    await waitFor('the simulator quote', async () => (await requestsAs(broker)).every((r) => r.status === 'QUOTED'));

    // The simulator quotes in EUR (no currency given): the cheapest are per currency, never CHF against EUR.
    const { proposal } = await gql(
      broker,
      'query($id: ID!) { proposal(tenderId: $id) { cheapest { currency insuranceSum deductible insurer { name } option { premium currency premiumWithTax } } } }',
      { id: scene.tender.id },
    );
    expect(proposal.cheapest).toEqual([
      {
        currency: 'CHF',
        insuranceSum: 1_000_000,
        deductible: 10_000,
        insurer: { name: 'Scripted Insurance' },
        option: { premium: 900, currency: 'CHF', premiumWithTax: 1071 },
      },
      {
        currency: 'CHF',
        insuranceSum: 2_000_000,
        deductible: 0,
        insurer: { name: 'Scripted Insurance' },
        option: { premium: 2000, currency: 'CHF', premiumWithTax: 2380 },
      },
      {
        currency: 'EUR',
        insuranceSum: 1_000_000,
        deductible: 10_000,
        insurer: { name: 'Anchor Insurance' },
        option: { premium: 2525, currency: 'EUR', premiumWithTax: 3004.75 },
      },
      {
        currency: 'EUR',
        insuranceSum: 2_000_000,
        deductible: 0,
        insurer: { name: 'Anchor Insurance' },
        option: { premium: 5150, currency: 'EUR', premiumWithTax: 6128.5 },
      },
    ]);
    const internalView = await scriptedRequest(internal);
    expect(internalView).toMatchObject({ status: 'QUOTED' });
    const { quoteRequests } = await gql(internal, 'query($id: ID!) { quoteRequests(tenderId: $id) { insurer { name } quoteNote } }', {
      id: scene.tender.id,
    });
    expect(quoteRequests.find((r: any) => r.insurer.name === 'Scripted Insurance').quoteNote).toBe(
      'dropped 1 more expensive option(s) for a limit already offered',
    );
  });

  it.each([
    [
      'a reason of 10 000 characters',
      { decision: 'DECLINED', reason: 'x'.repeat(10_000), quote_options: [] },
      /reason must be at most 500 characters/,
    ],
    [
      '1 000 subjectivities',
      {
        quote_options: [{ ...LIMIT, premium: 10, subjectivities: Array.from({ length: 1000 }, () => ({ text: 'a', stage: 'PRE_BIND' })) }],
      },
      /option 0: subjectivities must hold at most 20 subjectivities, got 1000/,
    ],
    [
      'the currency "€"',
      { currency: '€', quote_options: [{ ...LIMIT, premium: 10 }] },
      /currency must be an ISO 4217 currency code such as EUR, got "€"/,
    ],
    [
      'valid_until in the year 9999',
      { valid_until: '9999-12-31', quote_options: [{ ...LIMIT, premium: 10 }] },
      /valid_until must be within 366 days/,
    ],
    [
      'the decision "MAYBE"',
      { decision: 'MAYBE', quote_options: [{ ...LIMIT, premium: 10 }] },
      /decision must be QUOTED, DECLINED, REFERRED, got "MAYBE"/,
    ],
    [
      'a subjectivity stage "SOMETIME"',
      { quote_options: [{ ...LIMIT, premium: 10, subjectivities: [{ text: 'a', stage: 'SOMETIME' }] }] },
      /option 0: subjectivities.0.stage must be PRE_BIND or POST_BIND/,
    ],
    [
      'a decline with options',
      { decision: 'DECLINED', quote_options: [{ ...LIMIT, premium: 10 }] },
      /decision DECLINED comes with no options/,
    ],
    [
      'a date that is no day',
      { valid_until: '2027-02-30', quote_options: [{ ...LIMIT, premium: 10 }] },
      /valid_until must be an RFC 3339 timestamp/,
    ],
  ])('an answer with %s fails as an invalid quote, the detail for internal users only, nothing stored', async (_name, body, detail) => {
    await setUp();
    const id = await askScripted();
    expect(await scripted!.quote(id, body)).toBe(202);
    const seenByBroker = await settledAs(['FAILED']);
    expect(seenByBroker).toMatchObject({
      failureReason: 'insurer sent an invalid quote',
      failureDetail: null,
      options: [],
      validUntil: null,
    });
    const seenInternally = await scriptedRequest(internal);
    expect(seenInternally.failureDetail).toMatch(detail);
    expect(seenInternally.underwriterReason).toBeNull();
  });

  it("a decline with a reason: the broker, internal users and the insurer itself read the reason; analysts and other insurers don't", async () => {
    await setUp();
    sims = scene.closes(await startSimulatedInsurers(scene.gateway, [{ name: 'Anchor Insurance' }]));
    const id = await askScripted();
    await requestQuotes([sims.insurers[0].id]);
    expect(
      await scripted!.quote(id, { decision: 'DECLINED', reason: 'Turnover outside our appetite\nfor this line', quote_options: [] }),
    ).toBe(202);
    const declined = await settledAs(['DECLINED']);
    expect(declined).toMatchObject({ underwriterReason: 'Turnover outside our appetite\nfor this line', options: [], currency: null });
    expect((await scriptedRequest(internal)).underwriterReason).toBe('Turnover outside our appetite\nfor this line');
    const own = await tokenFor(scene.gateway, Role.INSURER, { insurerId: scripted!.insurer.id });
    expect((await scriptedRequest(own)).underwriterReason).toBe('Turnover outside our appetite\nfor this line');
    expect((await scriptedRequest(await tokenFor(scene.gateway, Role.ANALYST))).underwriterReason).toBeNull();
    const other = await tokenFor(scene.gateway, Role.INSURER, { insurerId: sims.insurers[0].id });
    expect((await requestsAs(other)).map((request) => request.insurer.name)).toEqual(['Anchor Insurance']);
    const { proposal } = await gql(
      other,
      'query($id: ID!) { proposal(tenderId: $id) { entries { insurer { name } quoteRequest { underwriterReason } } } }',
      {
        id: scene.tender.id,
      },
    );
    expect(proposal.entries).toEqual([{ insurer: { name: 'Anchor Insurance' }, quoteRequest: { underwriterReason: null } }]);

    // Once the tender is closed, insurers see none of it.
    await gql(broker, 'mutation($t: ID!) { closeTender(tenderId: $t, reason: "done") { status } }', { t: scene.tender.id });
    expect(await requestsAs(own)).toEqual([]);
  });

  it('a referral waits for a further callback; the final answer, fetched once more, replaces it; the broker hears of both', async () => {
    await setUp();
    receiver = scene.closes(await startWebhookReceiver());
    await register(broker, '/broker', ['quote.received']);
    const id = await askScripted();
    expect(await scripted!.quote(id, { decision: 'REFERRED', reason: 'Needs a look at the 2025 claims', quote_options: [] })).toBe(202);
    const referred = await settledAs(['REFERRED']);
    expect(referred).toMatchObject({ underwriterReason: 'Needs a look at the 2025 claims', options: [] });
    // A referral is still open: asking the insurer again is refused.
    const again = await graphql(scene.gateway, broker, 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }', {
      input: {
        tenderId: scene.tender.id,
        insurerIds: [scripted!.insurer.id],
        limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }],
        riskInformation: {},
      },
    });
    expect(again.body.errors[0].extensions.code).toBe('CONFLICT');

    expect(await scripted!.quote(id, { decision: 'QUOTED', currency: 'EUR', quote_options: [{ ...LIMIT, premium: 1500 }] })).toBe(202);
    const quoted = await settledAs(['QUOTED']);
    expect(quoted).toMatchObject({ underwriterReason: null, currency: 'EUR' });
    expect(quoted.options.map((o: any) => o.premium)).toEqual([1500]);
    const hooks = await waitFor('both webhooks', async () => receiver!.received('/broker').length === 2 && receiver!.received('/broker'));
    expect(hooks.map(({ event }) => [event.type, event.data.quote_status])).toEqual([
      ['quote.received', 'REFERRED'],
      ['quote.received', 'QUOTED'],
    ]);
    expect(new Set(hooks.map(({ event }) => event.id)).size).toBe(2);
  });

  it('a quote already past its validity when fetched is stored EXPIRED, is no cheapest, and ordering cover on it answers QUOTE_EXPIRED and changes nothing', async () => {
    await setUp();
    const id = await askScripted();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const lapsed = new Date(Date.now() - 5).toISOString();
    expect(await scripted!.quote(id, { valid_until: lapsed, quote_options: [{ ...LIMIT, premium: 700 }] })).toBe(202);
    const expired = await settledAs(['EXPIRED']);
    expect(expired).toMatchObject({ validUntil: lapsed, currency: 'EUR' });
    expect(expired.options).toMatchObject([{ premium: 700, expired: true, cheapest: false }]);
    const { proposal } = await gql(broker, 'query($id: ID!) { proposal(tenderId: $id) { cheapest { currency } } }', {
      id: scene.tender.id,
    });
    expect(proposal.cheapest).toEqual([]);
    const order = await graphql(
      scene.gateway,
      broker,
      'mutation($t: ID!, $o: ID!) { orderCover(tenderId: $t, quoteOptionId: $o) { status } }',
      {
        t: scene.tender.id,
        o: expired.options[0].id,
      },
    );
    expect(order.status).toBe(409);
    expect(order.body.errors[0].extensions).toMatchObject({ code: 'QUOTE_EXPIRED', errors: [{ parameter: 'quoteOptionId' }] });
    const after = await scene.gateway.em().findOneOrFail(Tender, { id: scene.tender.id }, { populate: ['orderedOption'] });
    expect([after.status, after.orderedOption ?? null, after.version]).toEqual([TenderStatus.QUOTES_AVAILABLE, null, scene.tender.version]);
  });

  it.each([
    ['a date before the request was sent', new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10)],
    ['a timestamp in 1970', '1970-01-01T00:00:00Z'],
  ])(
    'a quote whose valid_until (%s) passed before it was fetched is stored EXPIRED with its options, the reason noted for internal users',
    async (_name, validUntil) => {
      await setUp();
      const id = await askScripted([LIMIT, OTHER_LIMIT]);
      const options = [
        { ...LIMIT, premium: 700, subjectivities: [{ text: 'MFA before cover starts', stage: 'PRE_BIND' }] },
        { ...OTHER_LIMIT, premium: 1400 },
      ];
      expect(await scripted!.quote(id, { valid_until: validUntil, currency: 'CHF', quote_options: options })).toBe(202);
      const expired = await settledAs(['EXPIRED', 'FAILED']);
      expect(expired).toMatchObject({ status: 'EXPIRED', failureReason: null, currency: 'CHF' });
      expect(new Date(expired.validUntil).getTime()).toBeLessThan(Date.now() - 86_400_000);
      expect(
        expired.options.map((o: any) => [o.insuranceSum, o.deductible, o.premium, o.currency, o.expired, o.cheapest, o.subjectivities]),
      ).toEqual([
        [1_000_000, 10_000, 700, 'CHF', true, false, [{ text: 'MFA before cover starts', stage: 'PRE_BIND' }]],
        [2_000_000, 0, 1400, 'CHF', true, false, []],
      ]);
      const { quoteNote } = (await gql(internal, 'query($id: ID!) { quoteRequests(tenderId: $id) { quoteNote } }', { id: scene.tender.id }))
        .quoteRequests[0];
      expect(quoteNote).toMatch(
        new RegExp(`^already expired when received at .+: valid until ${expired.validUntil.replace(/[.]/g, '\\.')}$`),
      );
      expect((await scriptedRequest()).quoteNote).toBeUndefined();
    },
  );

  it('a quote whose validity passes expires on schedule: quote.expiring ahead, then quote.expired, to the broker and the quoting insurer', async () => {
    await setUp({ QUOTE_EXPIRY_INTERVAL_MS: '100', QUOTE_EXPIRY_WARNING: '60s' });
    receiver = scene.closes(await startWebhookReceiver());
    await register(broker, '/broker', ['quote.received', 'quote.expiring', 'quote.expired']);
    await register(await tokenFor(scene.gateway, Role.INSURER, { insurerId: scripted!.insurer.id }), '/insurer', [
      'quote.expiring',
      'quote.expired',
    ]);
    const id = await askScripted();
    const validUntil = new Date(Date.now() + 1500);
    expect(await scripted!.quote(id, { valid_until: validUntil.toISOString(), quote_options: [{ ...LIMIT, premium: 700 }] })).toBe(202);
    const quoted = await settledAs(['QUOTED']);
    expect(quoted.options[0]).toMatchObject({ cheapest: true, expired: false });
    await settledAs(['EXPIRED']);
    const row = await scene.gateway.em().findOneOrFail(QuoteRequest, { insurer: scripted!.insurer.id });
    // Not early, and within one interval (and a little scheduling) of the validity's end.
    expect(row.updatedAt.getTime()).toBeGreaterThan(validUntil.getTime());
    expect(row.updatedAt.getTime() - validUntil.getTime()).toBeLessThan(100 + 400);
    const expected = (path: string) =>
      waitFor(`${path}'s webhooks`, async () => {
        const events = receiver!.received(path).map(({ event }) => event);
        return events.some((event) => event.type === 'quote.expired') && events;
      });
    const heard: Record<string, string[]> = {};
    for (const path of ['/broker', '/insurer']) {
      const events = (await expected(path)).filter((event) => event.type !== 'quote.received');
      heard[path] = events.map((event) => event.id);
      expect(events.map((event) => [event.type, event.data])).toEqual([
        [
          'quote.expiring',
          { tender_id: scene.tender.id, status: 'QUOTES_AVAILABLE', quote_request_id: row.id, valid_until: validUntil.toISOString() },
        ],
        [
          'quote.expired',
          { tender_id: scene.tender.id, status: 'QUOTES_AVAILABLE', quote_request_id: row.id, valid_until: validUntil.toISOString() },
        ],
      ]);
    }
    // One event each, the same for both parties (de-duplicated on its id).
    expect(heard['/insurer']).toEqual(heard['/broker']);
  });

  it('ordering cover on a quote past its validity answers QUOTE_EXPIRED even before the sweep has marked it', async () => {
    await setUp({ QUOTE_EXPIRY_INTERVAL_MS: '3600000' });
    const id = await askScripted();
    const validUntil = new Date(Date.now() + 600);
    await scripted!.quote(id, { valid_until: validUntil.toISOString(), quote_options: [{ ...LIMIT, premium: 700 }] });
    const quoted = await settledAs(['QUOTED']);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, validUntil.getTime() - Date.now() + 20)));
    expect((await scriptedRequest()).status).toBe(QuoteRequestStatus.QUOTED);
    const order = await graphql(
      scene.gateway,
      broker,
      'mutation($t: ID!, $o: ID!) { orderCover(tenderId: $t, quoteOptionId: $o) { status } }',
      {
        t: scene.tender.id,
        o: quoted.options[0].id,
      },
    );
    expect(order.body.errors[0].extensions.code).toBe('QUOTE_EXPIRED');
    expect((await scriptedRequest()).options[0]).toMatchObject({ expired: true, cheapest: false });
  });
});

describe("the simulator's behaviours for quote terms", () => {
  it('quote-terms, decline-reason and refer give a quote with terms, a decline with its reason, and a referral followed by a quote', async () => {
    await setUp();
    sims = scene.closes(
      await startSimulatedInsurers(scene.gateway, [
        { name: 'Terms Insurance', behaviour: 'quote-terms', currency: 'CHF' },
        { name: 'Reason Insurance', behaviour: 'decline-reason' },
        { name: 'Referral Insurance', behaviour: 'refer' },
      ]),
    );
    await requestQuotes(sims.insurers.map((insurer) => insurer.id));
    const settled = await waitFor('the answers', async () => {
      const requests = await requestsAs(broker);
      const done = requests.filter((request) => request.insurer.name !== 'Scripted Insurance');
      return done.every((request) => ['QUOTED', 'DECLINED'].includes(request.status)) && done;
    });
    const byName = Object.fromEntries(settled.map((request: any) => [request.insurer.name, request]));
    expect(byName['Terms Insurance']).toMatchObject({ status: 'QUOTED', currency: 'CHF', underwriterReason: null });
    expect(Date.parse(byName['Terms Insurance'].validUntil)).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    expect(byName['Terms Insurance'].options.map((o: any) => [o.premium, o.subjectivities.map((s: any) => s.stage)])).toEqual([
      [2272.5, ['PRE_BIND', 'POST_BIND']],
      [2525, []],
    ]);
    expect(byName['Reason Insurance']).toMatchObject({
      status: 'DECLINED',
      underwriterReason: 'Outside our appetite for this line of business (simulated)',
    });
    // The referral was answered, then the insurer called back again and the quote replaced it.
    expect(byName['Referral Insurance']).toMatchObject({ status: 'QUOTED', underwriterReason: null, currency: 'EUR' });
    const [, , referring] = sims.slugs;
    expect(sims.simulator.stats(referring)).toMatchObject({ posts: 1, callbacks: 2, fetches: 2 });
  });
});
