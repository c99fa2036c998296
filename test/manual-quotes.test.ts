import { describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { QuoteOption, QuoteRequest, QuoteRequestStatus } from '../src/quotes';
import { WebhookDelivery, WebhookEventType } from '../src/webhooks';
import { createClient, graphql, requestToken, tokenFor, graphqlData } from './helpers/gateway';
import { withGateway, type Scene } from './helpers/scene';
import { startScriptedInsurer, type ScriptedInsurer } from './helpers/scripted-insurer';
import { startSimulatedInsurers, waitFor, type SimulatedInsurers } from './helpers/simulator';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver';

const SUBMIT = `mutation($input: SubmitManualQuoteInput!) { submitManualQuote(input: $input) {
  id status source answeredBy underwriterReason currency validUntil
  options { insuranceSum deductible premium premiumWithTax currency cheapest subjectivities { text stage } } } }`;
const REQUESTS = `query($id: ID!) { quoteRequests(tenderId: $id) { id status source answeredBy attempts insurer { name }
  options { premium premiumWithTax currency cheapest } } }`;

let broker: string;
let internal: string;
let manualId: string;
let manualToken: string;
let manualAppId: string;
let sims: SimulatedInsurers | undefined;
let scripted: ScriptedInsurer | undefined;
let receiver: WebhookReceiver | undefined;

const scene = withGateway({ webhooks: 'fast', tender: true, setUp: setUpScene });

async function setUpScene(scene: Scene) {
  broker = await scene.token(Role.BROKER);
  internal = await scene.token(Role.INTERNAL);
  const created = await gql(
    internal,
    'mutation { createInsurer(input: { name: "Paper Insurance", integration: MANUAL }) { id integration quoteApiUrl } }',
  );
  expect(created.createInsurer).toMatchObject({ integration: 'MANUAL', quoteApiUrl: null });
  manualId = created.createInsurer.id;
  const credentials = await createClient(scene.gateway, Role.INSURER, { insurerId: manualId });
  manualAppId = credentials.appId;
  manualToken = await requestToken(scene.gateway, credentials);
}

const gql = (token: string, query: string, variables?: Record<string, unknown>) => graphqlData(scene.gateway, token, query, variables);

async function requestQuotes(insurerIds: string[]) {
  return (
    await gql(broker, 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id status source insurer { name } } }', {
      input: { tenderId: scene.tender.id, insurerIds, limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }], riskInformation: {} },
    })
  ).requestQuotes as { id: string; status: string; source: string; insurer: { name: string } }[];
}

const option = (premium: number, extra: Record<string, unknown> = {}) => ({
  insuranceSum: 1_000_000,
  deductible: 10_000,
  premium,
  ...extra,
});

async function register(token: string, path: string, eventTypes: string[]) {
  const response = await fetch(`${scene.gateway.url}/integration/v1/webhook-endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver!.url(path), event_types: eventTypes }),
  });
  expect(response.status).toBe(201);
}

describe('insurers without an API (MANUAL)', () => {
  it('are asked without anything being sent, hear of it by TENDER_INVITED, answer their own request, and are compared like any insurer', async () => {
    receiver = scene.closes(await startWebhookReceiver());
    await register(manualToken, '/manual', ['tender.invited']);
    await register(broker, '/broker', ['quote.received']);
    sims = scene.closes(await startSimulatedInsurers(scene.gateway, [{ name: 'Anchor Insurance' }]));
    const created = await requestQuotes([manualId, sims.insurers[0].id]);
    const manual = created.find((request) => request.insurer.name === 'Paper Insurance')!;
    expect(manual).toMatchObject({ status: 'AWAITING_MANUAL', source: 'MANUAL' });
    await waitFor('the invitation', async () => receiver!.received('/manual').length === 1);
    expect(receiver.received('/manual')[0].event).toMatchObject({ type: 'tender.invited', data: { tender_id: scene.tender.id } });
    await waitFor('the API quote', async () =>
      (await gql(broker, REQUESTS, { id: scene.tender.id })).quoteRequests.some((r: any) => r.status === 'QUOTED'),
    );
    const waiting = (await gql(broker, REQUESTS, { id: scene.tender.id })).quoteRequests.find((r: any) => r.id === manual.id);
    expect(waiting).toMatchObject({ status: 'AWAITING_MANUAL', attempts: 0, options: [] });

    const answered = await gql(manualToken, SUBMIT, {
      input: {
        quoteRequestId: manual.id,
        decision: 'QUOTED',
        validUntil: new Date(Date.now() + 7 * 86_400_000).toISOString(),
        options: [option(2000, { subjectivities: [{ text: 'Backups tested quarterly', stage: 'PRE_BIND' }] }), option(2400)],
      },
    });
    expect(answered.submitManualQuote).toMatchObject({ status: 'QUOTED', source: 'MANUAL', answeredBy: null, currency: 'EUR' });
    expect(answered.submitManualQuote.options).toEqual([
      {
        insuranceSum: 1_000_000,
        deductible: 10_000,
        premium: 2000,
        premiumWithTax: 2380,
        currency: 'EUR',
        cheapest: true,
        subjectivities: [{ text: 'Backups tested quarterly', stage: 'PRE_BIND' }],
      },
      {
        insuranceSum: 1_000_000,
        deductible: 10_000,
        premium: 2400,
        premiumWithTax: 2856,
        currency: 'EUR',
        cheapest: false,
        subjectivities: [],
      },
    ]);
    // The broker sees who entered it, and the cheapest across API and manual answers alike.
    const seen = (await gql(broker, REQUESTS, { id: scene.tender.id })).quoteRequests;
    expect(seen.find((r: any) => r.id === manual.id)).toMatchObject({ answeredBy: manualAppId, source: 'MANUAL' });
    expect(seen.find((r: any) => r.insurer.name === 'Anchor Insurance')).toMatchObject({
      source: 'API',
      options: [{ premium: 2525, cheapest: false }],
    });
    const hooks = await waitFor(
      'the broker webhooks',
      async () => receiver!.received('/broker').length === 2 && receiver!.received('/broker'),
    );
    expect(hooks.map(({ event }) => [event.data.quote_request_id === manual.id, event.data.quote_status]).sort()).toEqual([
      [false, 'QUOTED'],
      [true, 'QUOTED'],
    ]);

    // Answered is answered: a second answer is refused and changes nothing.
    const again = await graphql(scene.gateway, manualToken, SUBMIT, { input: { quoteRequestId: manual.id, options: [option(10)] } });
    expect(again.body.errors[0].extensions.code).toBe('CONFLICT');
    expect(await scene.gateway.em().count(QuoteOption, { quoteRequest: manual.id })).toBe(2);

    const { tenderStatistics } = await gql(
      internal,
      '{ tenderStatistics { insurers { insurer { name } responses apiResponses manualResponses } } }',
    );
    expect(tenderStatistics.insurers).toEqual([
      { insurer: { name: 'Anchor Insurance' }, responses: 1, apiResponses: 1, manualResponses: 0 },
      { insurer: { name: 'Paper Insurance' }, responses: 1, apiResponses: 0, manualResponses: 1 },
    ]);
  });

  it('another insurer cannot answer (NOT_FOUND), a broker may not (FORBIDDEN); an internal user answers on its behalf, recorded as such', async () => {
    const [manual] = await requestQuotes([manualId]);
    const other = await tokenFor(scene.gateway, Role.INSURER, { insurerId: scene.world.insurers[0].id });
    const foreign = await graphql(scene.gateway, other, SUBMIT, { input: { quoteRequestId: manual.id, options: [option(10)] } });
    expect([foreign.status, foreign.body.errors[0].extensions.code]).toEqual([404, 'NOT_FOUND']);
    const byBroker = await graphql(scene.gateway, broker, SUBMIT, { input: { quoteRequestId: manual.id, options: [option(10)] } });
    expect(byBroker.body.errors[0].extensions.code).toBe('FORBIDDEN');

    const internalAppId = (await gql(internal, '{ me { appId } }')).me.appId;
    const referred = await gql(internal, SUBMIT, {
      input: { quoteRequestId: manual.id, decision: 'REFERRED', reason: 'Underwriter on leave until Monday', options: [] },
    });
    expect(referred.submitManualQuote).toMatchObject({
      status: 'REFERRED',
      underwriterReason: 'Underwriter on leave until Monday',
      answeredBy: internalAppId,
    });
    // A referral is answered once more; the final answer replaces it.
    const declined = await gql(internal, SUBMIT, {
      input: { quoteRequestId: manual.id, decision: 'DECLINED', reason: 'Outside appetite', options: [] },
    });
    expect(declined.submitManualQuote).toMatchObject({ status: 'DECLINED', underwriterReason: 'Outside appetite', options: [] });
    // The insurer reads its own answer's reason, but not who entered it.
    const own = await gql(manualToken, 'query($id: ID!) { quoteRequests(tenderId: $id) { underwriterReason answeredBy } }', {
      id: scene.tender.id,
    });
    expect(own.quoteRequests).toEqual([{ underwriterReason: 'Outside appetite', answeredBy: null }]);
  });

  it.each([
    ['a reason of 10 000 characters', { decision: 'DECLINED', reason: 'x'.repeat(10_000), options: [] }, 'reason'],
    [
      '1 000 subjectivities',
      { options: [option(10, { subjectivities: Array.from({ length: 1000 }, () => ({ text: 'a', stage: 'PRE_BIND' })) })] },
      'options[0].subjectivities',
    ],
    ['the currency "€"', { currency: '€', options: [option(10)] }, 'currency'],
    ['validUntil in the year 9999', { validUntil: '9999-12-31T00:00:00Z', options: [option(10)] }, 'validUntil'],
    ['validUntil in 1970', { validUntil: '1970-01-01', options: [option(10)] }, 'validUntil'],
    ['a premium below a cent', { options: [option(0.001)] }, 'options[0].premium'],
    ['a limit that was not requested', { options: [{ insuranceSum: 5, deductible: 0, premium: 10 }] }, 'options'],
    [
      'a subjectivity with a control character',
      { options: [option(10, { subjectivities: [{ text: 'a\u0007b', stage: 'PRE_BIND' }] })] },
      'options[0].subjectivities[0].text',
    ],
  ])('an answer with %s is BAD_USER_INPUT naming the field, and stores nothing', async (_name, fields, parameter) => {
    const [manual] = await requestQuotes([manualId]);
    const { status, body } = await graphql(scene.gateway, manualToken, SUBMIT, { input: { quoteRequestId: manual.id, ...fields } });
    expect(status, JSON.stringify(body.errors)).toBe(400);
    expect(body.errors[0].extensions.code, JSON.stringify(body.errors)).toBe('BAD_USER_INPUT');
    // Named in extensions.errors by the quote rules; a control character is refused before, by the request screening, naming it in the message.
    const named = [...(body.errors[0].extensions.errors ?? []).map((e: { parameter: string }) => e.parameter), body.errors[0].message].join(
      ' ',
    );
    expect(named).toContain(parameter);
    const row = await scene.gateway.em().findOneOrFail(QuoteRequest, { id: manual.id });
    expect([row.status, row.validUntil ?? null, row.currency ?? null, row.underwriterReason ?? null]).toEqual([
      'AWAITING_MANUAL',
      null,
      null,
      null,
    ]);
    expect(await scene.gateway.em().count(QuoteOption, { quoteRequest: manual.id })).toBe(0);
  });

  it('a decision "MAYBE" is BAD_USER_INPUT (400), never a 500', async () => {
    const [manual] = await requestQuotes([manualId]);
    const { status, body } = await graphql(scene.gateway, manualToken, SUBMIT, {
      input: { quoteRequestId: manual.id, decision: 'MAYBE', options: [] },
    });
    expect([status, body.errors[0].extensions.code]).toEqual([400, 'BAD_USER_INPUT']);
  });

  it('a manual answer after the tender is closed is refused and stores nothing', async () => {
    const [manual] = await requestQuotes([manualId]);
    await gql(broker, 'mutation($t: ID!) { closeTender(tenderId: $t, reason: "done") { status } }', { t: scene.tender.id });
    const late = await graphql(scene.gateway, manualToken, SUBMIT, { input: { quoteRequestId: manual.id, options: [option(10)] } });
    expect([late.status, late.body.errors[0].extensions.code]).toEqual([409, 'CONFLICT']);
    const row = await scene.gateway.em().findOneOrFail(QuoteRequest, { id: manual.id });
    expect([row.status, row.answeredBy ?? null]).toEqual(['CANCELLED', null]);
    expect(await scene.gateway.em().count(QuoteOption, { quoteRequest: manual.id })).toBe(0);
  });

  it("a losing insurer's answer after cover was ordered (IN_COVERNOTE, then SUCCESSFUL) is CONFLICT before anything is written, as an insurer system's late quote is not stored", async () => {
    receiver = scene.closes(await startWebhookReceiver());
    await register(broker, '/broker', ['quote.received']);
    sims = scene.closes(await startSimulatedInsurers(scene.gateway, [{ name: 'Anchor Insurance' }]));
    scripted = scene.closes(await startScriptedInsurer(scene.gateway));
    const created = await requestQuotes([manualId, sims.insurers[0].id, scripted.insurer.id]);
    const manual = created.find((request) => request.insurer.name === 'Paper Insurance')!;
    const late = created.find((request) => request.insurer.name === scripted!.insurer.name)!;
    const won = await waitFor('the API quote', async () =>
      (await gql(broker, REQUESTS, { id: scene.tender.id })).quoteRequests.find((r: any) => r.status === 'QUOTED'),
    );
    const reference = await waitFor('the acknowledgement', async () => scripted!.ids().at(-1));
    const { orderCover } = await gql(broker, 'mutation($t: ID!, $o: ID!) { orderCover(tenderId: $t, quoteOptionId: $o) { status } }', {
      t: scene.tender.id,
      o: (await scene.gateway.em().findOneOrFail(QuoteOption, { quoteRequest: won.id })).id,
    });
    expect(orderCover.status).toBe('IN_COVERNOTE');

    const refused = async (token: string, expected: RegExp) => {
      const answer = await graphql(scene.gateway, token, SUBMIT, { input: { quoteRequestId: manual.id, options: [option(10)] } });
      expect([answer.status, answer.body.errors?.[0].extensions.code, answer.body.data]).toEqual([409, 'CONFLICT', null]);
      expect(answer.body.errors[0].message).toMatch(expected);
    };
    await refused(manualToken, /Cover was ordered on this tender \(it is IN_COVERNOTE\)/);
    // The order cancelled the open requests in its transaction: the manual one, and the insurer system's, whose quote
    // arriving now is not fetched, stored or announced.
    expect(await scripted.quote(reference, { quote_options: [{ insurance_sum: 1_000_000, deductible: 10_000, premium: 5 }] })).toBe(202);
    await gql(internal, 'mutation($t: ID!) { finaliseContract(tenderId: $t) { status } }', { t: scene.tender.id });
    await refused(manualToken, /Cover was ordered on this tender \(it is SUCCESSFUL\)/);
    await refused(internal, /it is SUCCESSFUL/);
    // A request left waiting by an order from before this rule is refused by the tender's status all the same.
    await scene.gateway.em().nativeUpdate(QuoteRequest, { id: manual.id }, { status: QuoteRequestStatus.AWAITING_MANUAL });
    await refused(manualToken, /it is SUCCESSFUL/);

    const rows = await scene.gateway.em().find(QuoteRequest, { id: { $in: [manual.id, late.id] } }, { orderBy: { createdAt: 'asc' } });
    expect(rows.map((row) => [row.id, row.status, row.failureReason ?? null, row.answeredBy ?? null, row.quotedAt ?? null])).toEqual(
      expect.arrayContaining([
        [manual.id, 'AWAITING_MANUAL', 'cover ordered', null, null],
        [late.id, 'CANCELLED', 'cover ordered', null, null],
      ]),
    );
    expect(await scene.gateway.em().count(QuoteOption, { quoteRequest: { $in: [manual.id, late.id] } })).toBe(0);
    const announced = await scene.gateway.em().find(WebhookDelivery, { eventType: WebhookEventType.QUOTE_RECEIVED });
    expect(announced.map((delivery) => JSON.parse(delivery.payload).data.quote_request_id)).toEqual([won.id]);
    const { proposal } = await gql(broker, 'query($id: ID!) { proposal(tenderId: $id) { cheapest { insurer { name } } } }', {
      id: scene.tender.id,
    });
    expect(proposal.cheapest).toEqual([{ insurer: { name: 'Anchor Insurance' } }]);
  });

  it('an internal user changes an insurer between API and MANUAL; an API insurer needs a quote API URL, a MANUAL one takes none', async () => {
    const change = (input: Record<string, unknown>) =>
      graphql(
        scene.gateway,
        internal,
        'mutation($input: ChangeInsurerIntegrationInput!) { changeInsurerIntegration(input: $input) { integration quoteApiUrl } }',
        {
          input,
        },
      );
    const noUrl = await change({ insurerId: manualId, integration: 'API' });
    expect(noUrl.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      errors: [{ parameter: 'quoteApiUrl', message: 'is required for an API insurer' }],
    });
    const api = await change({ insurerId: manualId, integration: 'API', quoteApiUrl: 'http://127.0.0.1:1/paper' });
    expect(api.body.data.changeInsurerIntegration).toEqual({ integration: 'API', quoteApiUrl: 'http://127.0.0.1:1/paper' });
    const withUrl = await change({ insurerId: scene.world.insurers[0].id, integration: 'MANUAL', quoteApiUrl: 'http://127.0.0.1:1/x' });
    expect(withUrl.body.errors[0].extensions.errors[0].parameter).toBe('quoteApiUrl');
    await change({ insurerId: scene.world.insurers[0].id, integration: 'MANUAL' });
    const [asked] = await requestQuotes([scene.world.insurers[0].id]);
    expect(asked).toMatchObject({ status: 'AWAITING_MANUAL', source: 'MANUAL' });
    const created = await graphql(scene.gateway, internal, 'mutation { createInsurer(input: { name: "Needs URL" }) { id } }');
    expect(created.body.errors[0].extensions.errors[0]).toEqual({ parameter: 'quoteApiUrl', message: 'is required for an API insurer' });
    const forbidden = await graphql(
      scene.gateway,
      broker,
      'mutation { changeInsurerIntegration(input: { insurerId: "x", integration: MANUAL }) { id } }',
    );
    expect(forbidden.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});
