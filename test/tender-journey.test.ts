import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { getJson, graphql, json, tokenFor } from './helpers/gateway';
import { withGateway } from './helpers/scene';
import { startSimulatedInsurers, waitFor, type SimulatedInsurers } from './helpers/simulator';

let sims: SimulatedInsurers;

const scene = withGateway({ per: 'file', world: true });

beforeAll(async () => {
  sims = scene.closes(
    await startSimulatedInsurers(scene.gateway, [
      { name: 'Anchor Insurance', pricingFactor: 1 },
      { name: 'Beacon Insurance', pricingFactor: 0.9 },
      { name: 'Compass Insurance', pricingFactor: 1.1 },
    ]),
  );
});

describe('a tender from creation to sealed policy', () => {
  it('internal creates, the broker gets quotes and orders cover, the winner finalises and confirms; lists and privacy follow', async () => {
    const internal = await tokenFor(scene.gateway, Role.INTERNAL);
    const broker = await tokenFor(scene.gateway, Role.BROKER, { brokerCompanyId: scene.world.brokers[0].id });
    const [anchor, beacon, compass] = sims.insurers;
    const insurerToken = async (id: string) => tokenFor(scene.gateway, Role.INSURER, { insurerId: id });

    const created = await graphql(
      scene.gateway,
      internal,
      'mutation($input: CreateTenderInput!) { createTender(input: $input) { id status } }',
      {
        input: {
          product: 'Cyber Protect',
          lineOfBusinessId: scene.world.lines.cyber.id,
          brokerCompanyId: scene.world.brokers[0].id,
          customer: { id: scene.world.customer.id },
          submitter: { accountId: 'ACC-0', email: 'person0@broker.example', firstName: 'Erika', lastName: 'Muster0' },
          taxRate: 0.19,
        },
      },
    );
    const tenderId = created.body.data.createTender.id;

    await graphql(scene.gateway, broker, 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }', {
      input: {
        tenderId,
        insurerIds: [anchor.id, beacon.id, compass.id],
        limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }],
        riskInformation: { turnover: { amount: 2_500_000, currency: 'EUR' }, typeOfBusiness: 'Retail' },
      },
    });
    const proposalQuery =
      'query($id: ID!) { proposal(tenderId: $id) { entries { quoteRequest { status } } cheapest { insurer { id } option { id premium } } } }';
    const proposal = await waitFor('all three quotes', async () => {
      const { body } = await graphql(scene.gateway, broker, proposalQuery, { id: tenderId });
      return body.data.proposal.entries.every((e: any) => e.quoteRequest.status === 'QUOTED') && body.data.proposal;
    });
    const [cheapest] = proposal.cheapest;
    expect(cheapest.insurer.id).toBe(beacon.id);
    expect(cheapest.option.premium).toBe(2287.5);

    const steps: [string, string, Record<string, unknown>][] = [
      [broker, 'mutation($id: ID!) { t: startNegotiation(tenderId: $id) { status } }', {}],
      [broker, 'mutation($id: ID!, $o: ID!) { t: orderCover(tenderId: $id, quoteOptionId: $o) { status } }', { o: cheapest.option.id }],
      [await insurerToken(beacon.id), 'mutation($id: ID!) { t: finaliseContract(tenderId: $id) { status } }', {}],
    ];
    for (const [token, mutation, variables] of steps) {
      const { body } = await graphql(scene.gateway, token, mutation, { id: tenderId, ...variables });
      expect(body.errors, mutation).toBeUndefined();
    }

    const winner = await insurerToken(beacon.id);
    const confirmed = await fetch(`${scene.gateway.url}/integration/v1/tenders/${tenderId}/policy-documentation`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${winner}` },
      body: JSON.stringify({ policy_number: 'BEA-000123' }),
    });
    expect(confirmed.status).toBe(200);
    expect((await json(confirmed)).status).toBe('SUCCESSFUL');

    const forWinner = await getJson(scene.gateway, '/public/v1/tenders/successful', winner);
    expect(forWinner.body.payload.map((t: any) => t._id)).toEqual([tenderId]);
    expect(forWinner.body.payload[0].customer.name).toBe('Acme GmbH');
    expect(forWinner.body.payload[0].policy_documentation).toMatchObject({ status: 'CONFIRMED', policy_number: 'BEA-000123' });
    expect(Object.keys(forWinner.body.payload[0].changes_metadata).sort()).toEqual([
      'status_changed_to_in_covernote',
      'status_changed_to_in_negotiation',
      'status_changed_to_quotes_available',
      'status_changed_to_successful',
    ]);

    const forBroker = await getJson(scene.gateway, '/api/v1/tenders/successful', broker);
    expect(forBroker.body.payload.map((t: any) => t._id)).toEqual([tenderId]);
    expect(forBroker.body.payload[0].policy_documentation.status).toBe('CONFIRMED');

    const loser = await getJson(scene.gateway, `/public/v1/tenders/successful`, await insurerToken(anchor.id));
    expect(loser.body.payload).toHaveLength(1);
    const redacted = loser.body.payload[0];
    expect([
      redacted.customer,
      redacted.broker_company,
      redacted.person_in_charge,
      redacted.tax_rate,
      redacted.policy_documentation,
    ]).toEqual([null, null, null, null, null]);
    expect(redacted.status).toBe('SUCCESSFUL');
  });
});
