import { beforeEach, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { QuoteOption, QuoteRequest } from '../src/quotes';
import { graphqlData, tokenFor } from './helpers/gateway';
import { withGateway } from './helpers/scene';
import { startSimulatedInsurers, waitFor, type SimulatedInsurers } from './helpers/simulator';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver';

/**
 * Rule zero of issue 27: an insurer that implements only the specification (spec 2.3–2.5, 2.7) keeps working unchanged.
 * The expected values below were recorded from the gateway before quote terms existed; a spec-only insurer must still
 * produce exactly them.
 */

const PROPOSAL = `query ($id: ID!) {
  proposal(tenderId: $id) {
    taxRate orderedOptionId
    entries { insurer { name } quoteRequest { status lastError failureReason quoteNote attempts limits { insuranceSum deductible }
      options { insuranceSum deductible premium premiumWithTax cheapest ordered } } }
    cheapest { insuranceSum deductible insurer { name } option { premium premiumWithTax cheapest } }
  } }`;

let broker: string;
let sims: SimulatedInsurers | undefined;
let receiver: WebhookReceiver;

const scene = withGateway({ webhooks: 'fast', tender: true });

beforeEach(async () => {
  broker = await scene.token(Role.BROKER);
  receiver = scene.closes(await startWebhookReceiver());
});

const gql = (token: string, query: string, variables?: Record<string, unknown>) => graphqlData(scene.gateway, token, query, variables);

async function registerWebhooks(token: string, path: string, eventTypes: string[]) {
  const response = await fetch(`${scene.gateway.url}/integration/v1/webhook-endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url(path), event_types: eventTypes }),
  });
  expect(response.status).toBe(201);
}

/** The two limits the broker asks every insurer for. */
const REQUESTED_LIMITS = [
  { insuranceSum: 1_000_000, deductible: 10_000 },
  { insuranceSum: 2_000_000, deductible: 0 },
];

describe('rule zero: a spec-only insurer sees no change', () => {
  it('a spec-only quote and a spec-only decline give the stored quotes, proposal, statuses and webhooks they gave before quote terms', async () => {
    sims = scene.closes(
      await startSimulatedInsurers(scene.gateway, [
        { name: 'Anchor Insurance', pricingFactor: 1 },
        { name: 'Beacon Insurance', behaviour: 'decline' },
      ]),
    );
    const [anchor, beacon] = sims.insurers;
    await registerWebhooks(broker, '/broker', ['tender.status_changed', 'quote.received']);
    await registerWebhooks(await tokenFor(scene.gateway, Role.INSURER, { insurerId: anchor.id }), '/anchor', [
      'tender.invited',
      'tender.status_changed',
      'cover.ordered',
    ]);
    await gql(broker, 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }', {
      input: {
        tenderId: scene.tender.id,
        insurerIds: [anchor.id, beacon.id],
        limits: REQUESTED_LIMITS,
        riskInformation: { turnover: { amount: 5_000_000, currency: 'EUR' } },
      },
    });
    await waitFor('both answers', async () => {
      const data = await gql(broker, 'query($id: ID!) { quoteRequests(tenderId: $id) { status } }', { id: scene.tender.id });
      return data.quoteRequests.every((request: { status: string }) => ['QUOTED', 'DECLINED'].includes(request.status));
    });

    // The stored quote: the request's row and its options, column by column as before.
    const em = scene.gateway.em();
    const stored = await em.find(
      QuoteRequest,
      { tender: scene.tender.id },
      { orderBy: { insurer: { name: 'asc' } }, populate: ['insurer'] },
    );
    expect(
      stored.map((request) => ({
        insurer: request.insurer.name,
        status: request.status,
        attempts: request.attempts,
        lastError: request.lastError ?? null,
        failureReason: request.failureReason ?? null,
        failureDetail: request.failureDetail ?? null,
        quoteNote: request.quoteNote ?? null,
        quoted: request.quotedAt instanceof Date,
      })),
    ).toEqual(
      [
        ['Anchor Insurance', 'QUOTED'],
        ['Beacon Insurance', 'DECLINED'],
      ].map(([insurer, status]) => ({
        insurer,
        status,
        attempts: 0,
        lastError: null,
        failureReason: null,
        failureDetail: null,
        quoteNote: null,
        quoted: true,
      })),
    );
    const options = await em.find(QuoteOption, { quoteRequest: { tender: scene.tender.id } }, { orderBy: { position: 'asc' } });
    expect(options.map(({ position, insuranceSum, deductible, premium }) => ({ position, insuranceSum, deductible, premium }))).toEqual([
      { position: 0, insuranceSum: 1_000_000, deductible: 10_000, premium: 2525 },
      { position: 1, insuranceSum: 2_000_000, deductible: 0, premium: 5150 },
    ]);

    // The proposal, as the broker sees it.
    const { proposal } = await gql(broker, PROPOSAL, { id: scene.tender.id });
    expect(proposal).toEqual({
      taxRate: 0.19,
      orderedOptionId: null,
      entries: [
        {
          insurer: { name: 'Anchor Insurance' },
          quoteRequest: {
            status: 'QUOTED',
            lastError: null,
            failureReason: null,
            quoteNote: null,
            attempts: 0,
            limits: REQUESTED_LIMITS,
            options: [
              { insuranceSum: 1_000_000, deductible: 10_000, premium: 2525, premiumWithTax: 3004.75, cheapest: true, ordered: false },
              { insuranceSum: 2_000_000, deductible: 0, premium: 5150, premiumWithTax: 6128.5, cheapest: true, ordered: false },
            ],
          },
        },
        {
          insurer: { name: 'Beacon Insurance' },
          quoteRequest: {
            status: 'DECLINED',
            lastError: null,
            failureReason: null,
            quoteNote: null,
            attempts: 0,
            limits: REQUESTED_LIMITS,
            options: [],
          },
        },
      ],
      cheapest: [
        {
          insuranceSum: 1_000_000,
          deductible: 10_000,
          insurer: { name: 'Anchor Insurance' },
          option: { premium: 2525, premiumWithTax: 3004.75, cheapest: true },
        },
        {
          insuranceSum: 2_000_000,
          deductible: 0,
          insurer: { name: 'Anchor Insurance' },
          option: { premium: 5150, premiumWithTax: 6128.5, cheapest: true },
        },
      ],
    });

    // The simulator saw one request, one callback and one fetch per insurer, as before.
    for (const slug of sims.slugs) expect(sims.simulator.stats(slug)).toMatchObject({ posts: 1, quotes: 1, callbacks: 1, fetches: 1 });

    // The webhooks: the broker hears of both answers with the fields it heard before; the insurer of its invitation.
    const received = await waitFor('the webhooks', async () => receiver.received('/broker').length === 2 && receiver.received('/broker'));
    const requestIds = Object.fromEntries(stored.map((request) => [request.insurer.name, request.id]));
    expect(
      received
        .map(({ event }) => ({ type: event.type, data: event.data }))
        .sort((a, b) => a.data.quote_status.localeCompare(b.data.quote_status)),
    ).toEqual([
      {
        type: 'quote.received',
        data: {
          tender_id: scene.tender.id,
          status: 'QUOTES_AVAILABLE',
          quote_request_id: requestIds['Beacon Insurance'],
          quote_status: 'DECLINED',
        },
      },
      {
        type: 'quote.received',
        data: {
          tender_id: scene.tender.id,
          status: 'QUOTES_AVAILABLE',
          quote_request_id: requestIds['Anchor Insurance'],
          quote_status: 'QUOTED',
        },
      },
    ]);
    const insurerHooks = await waitFor(
      'the invitation',
      async () => receiver.received('/anchor').length === 1 && receiver.received('/anchor'),
    );
    expect(insurerHooks.map(({ event }) => ({ type: event.type, data: event.data }))).toEqual([
      { type: 'tender.invited', data: { tender_id: scene.tender.id, status: 'QUOTES_AVAILABLE' } },
    ]);
  });
});
