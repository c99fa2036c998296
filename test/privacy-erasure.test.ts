import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { QuoteOption, QuoteRequest } from '../src/quotes';
import { SubjectivityStage } from '../src/quotes/quote-request-status';
import { Customer } from '../src/parties';
import { CustomerErasure } from '../src/privacy';
import { createTender } from './helpers/fixtures';
import { getJson, graphql, graphqlData } from './helpers/gateway';
import { withGateway } from './helpers/scene';
import { PDF, addDocument } from './helpers/documents';
import { waitFor } from './helpers/simulator';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver';
import { whereMarkersAre } from './helpers/privacy';

/** Distinctive values, one per place personal data is held: after the erasure none may be found anywhere. */
const M = {
  customerName: 'ZqxCustomerName',
  companyId: 'ZQXCOMPANYID',
  street: 'ZqxStreet',
  houseNumber: 'ZqxHouse',
  zip: 'ZQXZIP',
  city: 'ZqxCity',
  accountId: 'ZQXACCOUNT',
  email: 'zqx.person@zqxmail.example',
  firstName: 'ZqxFirst',
  lastName: 'ZqxLast',
  salutation: 'ZqxSalutation',
  typeOfBusiness: 'ZqxBusiness',
  website: 'https://zqxwebsite.example/',
  riskNote: 'ZqxRiskNote',
  tenderRisk: 'ZqxTenderRisk',
  historyReason: 'ZqxHistoryReason',
  documentBytes: 'ZqxDocumentBytes',
  filename: 'zqxfilename',
  underwriter: 'ZqxUnderwriter',
  subjectivity: 'ZqxSubjectivity',
  manualNote: 'ZqxManualNote',
};
const MARKERS = Object.values(M).map((value) => value.replace(/^https:\/\/|\/$/g, ''));

const CREATE_TENDER = `mutation ($input: CreateTenderInput!) { createTender(input: $input) { id customer { id } personInCharge { id } } }`;
const ERASE = `mutation ($customerId: ID!, $reason: String!) {
  eraseCustomer(customerId: $customerId, reason: $reason) { customerId erasedAt erasedBy trigger reason tenders documents persons alreadyErased }
}`;

let internal: string;
let broker: string;
let receiver: WebhookReceiver;

const scene = withGateway({ per: 'file', webhooks: 'retrying', world: true });

beforeAll(async () => {
  internal = await scene.token(Role.INTERNAL);
  broker = await scene.token(Role.BROKER);
  receiver = scene.closes(await startWebhookReceiver());
});

const gql = (token: string, query: string, variables?: Record<string, unknown>) => graphqlData(scene.gateway, token, query, variables);

const person = (p: { accountId: string; email: string; firstName: string; lastName: string; salutation: string }) => p;

describe('eraseCustomer', () => {
  it('leaves no personal value of the customer or its persons in any table or the document store; the tenders and their figures stay', async () => {
    const { _id: endpointId, secret } = (await fetch(`${scene.gateway.url}/integration/v1/webhook-endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${broker}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url('/broker'), event_types: ['tender.status_changed', 'document.added', 'customer.erased'] }),
    }).then((response) => response.json())) as { _id: string; secret: string };
    expect(endpointId).toBeTruthy();

    const base = {
      product: 'Cyber Protect',
      lineOfBusinessId: scene.world.lines.cyber.id,
      brokerCompanyId: scene.world.brokers[0].id,
      taxRate: 0.19,
    };
    const marked = person({
      accountId: M.accountId,
      email: M.email,
      firstName: M.firstName,
      lastName: M.lastName,
      salutation: M.salutation,
    });
    const first = (
      await gql(internal, CREATE_TENDER, {
        input: {
          ...base,
          customer: {
            name: M.customerName,
            companyId: M.companyId,
            address: { street: M.street, houseNumber: M.houseNumber, zip: M.zip, city: M.city, country: 'DE' },
          },
          submitter: marked,
          riskInformation: { note: M.tenderRisk, employees: 42 },
        },
      })
    ).createTender;
    const customerId: string = first.customer.id;
    // The broker's employee in charge of another customer's tender too (world.people[0]).
    const shared = scene.world.people[0];
    const second = (
      await gql(internal, CREATE_TENDER, {
        input: {
          ...base,
          customer: { id: customerId },
          submitter: person({
            accountId: shared.accountId,
            email: shared.email,
            firstName: shared.firstName,
            lastName: shared.lastName,
            salutation: shared.salutation,
          }),
        },
      })
    ).createTender;
    expect(second.personInCharge.id).toBe(shared.id);
    const other = await createTender(scene.gateway.em(), scene.world, {});

    await gql(broker, `mutation ($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }`, {
      input: {
        tenderId: first.id,
        insurerIds: [scene.world.insurers[0].id],
        limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }],
        riskInformation: {
          turnover: { amount: 5_000_000, currency: 'EUR' },
          typeOfBusiness: M.typeOfBusiness,
          websiteUrl: M.website,
          additional: { notes: [M.riskNote], employees: 42 },
        },
      },
    });
    // What an insurer wrote in its own words: a decline's reason, a manual answer's note, an option's subjectivity.
    const em = scene.gateway.em();
    const request = await em.findOneOrFail(QuoteRequest, { tender: first.id });
    request.underwriterReason = `${M.underwriter} declined`;
    request.quoteNote = `${M.manualNote} entered by hand`;
    em.create(QuoteOption, {
      quoteRequest: request,
      position: 0,
      insuranceSum: 1_000_000,
      deductible: 10_000,
      premium: 1234,
      subjectivities: [{ text: `${M.subjectivity} signed`, stage: SubjectivityStage.PRE_BIND }],
    });
    await em.flush();

    const markedPdf = Buffer.concat([PDF, Buffer.from(`% ${M.documentBytes}\n`)]);
    await addDocument(scene.gateway, broker, { tenderId: first.id, kind: 'RISK', filename: `${M.filename}.pdf` }, markedPdf);
    // The same bytes on this customer's tender and on another's: stored once, and still the other's afterwards.
    await addDocument(scene.gateway, broker, { tenderId: second.id, kind: 'OTHER' });
    const otherDocument = await addDocument(scene.gateway, broker, { tenderId: other.id, kind: 'OTHER' });
    await gql(broker, `mutation { closeTender(tenderId: "${second.id}", reason: "${M.historyReason} moved abroad") { id } }`);
    await waitFor('the webhook deliveries', async () => receiver.received('/broker').length >= 4);

    const storeDir = join(scene.gateway.dataDir, 'documents');
    const before = await whereMarkersAre(scene.gateway.em(), MARKERS, storeDir);
    // Every marker was seeded somewhere: the search below finds what it looks for.
    for (const marker of MARKERS)
      expect(
        before.some((place) => place.endsWith(`: ${marker}`)),
        marker,
      ).toBe(true);

    const erased = (await gql(internal, ERASE, { customerId, reason: 'Ticket PRIV-1' })).eraseCustomer;
    expect(erased).toMatchObject({
      customerId,
      erasedBy: expect.any(String),
      trigger: 'REQUEST',
      reason: 'Ticket PRIV-1',
      tenders: 2,
      documents: 2,
      persons: 2,
      alreadyErased: false,
    });

    expect(await whereMarkersAre(scene.gateway.em(), MARKERS, storeDir)).toEqual([]);

    // The REST tender (checked against the OpenAPI document by the suite's contract check) keeps its figures.
    const firstRest = await getJson(scene.gateway, `/api/v1/tenders/${first.id}`, broker);
    expect(firstRest.status).toBe(200);
    expect(firstRest.body).toMatchObject({
      _id: first.id,
      status: 'QUOTES_AVAILABLE',
      product: 'Cyber Protect',
      tax_rate: 0.19,
      line_of_business: { _id: scene.world.lines.cyber.id, name: 'Cyber' },
      erased_at: erased.erasedAt,
      customer: { _id: customerId, name: '', company_id: '', address: { street: '', house_number: '', zip: '', city: '', country: '' } },
      person_in_charge: { account_id: '', email: '', first_name: '', last_name: '', salutation: '' },
      broker_company: { _id: scene.world.brokers[0].id, name: 'First Brokers' },
    });
    const secondRest = await getJson(scene.gateway, `/api/v1/tenders/${second.id}`, broker);
    expect(secondRest.body).toMatchObject({ status: 'CLOSED', erased_at: erased.erasedAt });
    // The shared employee: replaced on this customer's tender by an empty stand-in, unchanged on the other customer's.
    expect(secondRest.body.person_in_charge._id).not.toBe(shared.id);
    expect(secondRest.body.person_in_charge).toMatchObject({ first_name: '', last_name: '', email: '', account_id: '' });
    const otherRest = await getJson(scene.gateway, `/api/v1/tenders/${other.id}`, broker);
    expect(otherRest.body).toMatchObject({ erased_at: null, customer: { name: 'Acme GmbH' } });
    expect(otherRest.body.person_in_charge).toMatchObject({ _id: shared.id, first_name: shared.firstName, email: shared.email });
    const content = await fetch(`${scene.gateway.url}/api/v1/tenders/${other.id}/documents/${otherDocument}/content`, {
      headers: { authorization: `Bearer ${broker}` },
    });
    expect(Buffer.from(await content.arrayBuffer())).toEqual(PDF);
    expect((await getJson(scene.gateway, `/api/v1/tenders/${first.id}/documents`, broker)).body.payload).toEqual([]);

    // The quote request keeps its limits and the amounts of its risk information; its strings are empty.
    const requests = (
      await gql(
        broker,
        `query ($id: ID!) { quoteRequests(tenderId: $id) { limits { insuranceSum deductible } riskInformation options { premium } } }`,
        { id: first.id },
      )
    ).quoteRequests;
    expect(requests).toEqual([
      {
        limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }],
        riskInformation: {
          turnover: { amount: 5_000_000, currency: 'EUR' },
          type_of_business: '',
          website_url: '',
          customer_name: '',
          notes: [''],
          employees: 42,
        },
        options: [{ premium: 1234 }],
      },
    ]);

    // The broker company hears of it, by ids only, signed like every event.
    const event = await waitFor('CUSTOMER_ERASED', async () =>
      receiver.received('/broker').find((webhook) => webhook.event.type === 'customer.erased'),
    );
    expect(receiver.verify(event, secret)).toBeTruthy();
    expect(Object.keys(event.event).sort()).toEqual(['data', 'id', 'occurred_at', 'type']);
    expect(event.event.data).toEqual({ customer_id: customerId, tender_ids: [first.id, second.id].sort() });
    // The delivery log shows it too, as the OpenAPI document describes it (the suite's contract check).
    const deliveries = await getJson(scene.gateway, `/integration/v1/webhook-endpoints/${endpointId}/deliveries`, broker);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.payload.map((delivery: { event_type: string }) => delivery.event_type)).toContain('customer.erased');

    // Erasing again finds nothing new to remove here, is recorded as an erasure of its own, and tells the broker again.
    const again = (await gql(internal, ERASE, { customerId, reason: 'Ticket PRIV-2' })).eraseCustomer;
    expect(again).toMatchObject({ customerId, reason: 'Ticket PRIV-2', tenders: 2, documents: 0, alreadyErased: true });
    expect(await scene.gateway.em().count(CustomerErasure, { customerId })).toBe(2);
    expect((await getJson(scene.gateway, `/api/v1/tenders/${first.id}`, broker)).body.erased_at).toBe(erased.erasedAt);
    await waitFor(
      'the second CUSTOMER_ERASED',
      async () => receiver.received('/broker').filter((webhook) => webhook.event.type === 'customer.erased').length === 2,
    );

    // An erased customer takes no new tender: its data would be held again, out of the erasure's reach.
    const refused = await graphql(scene.gateway, internal, CREATE_TENDER, {
      input: { ...base, customer: { id: customerId }, submitter: marked },
    });
    expect(refused.body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('refuses a reason that names the customer, an unknown customer, and every role but internal users', async () => {
    const named = await graphql(scene.gateway, internal, ERASE, { customerId: scene.world.customer.id, reason: 'acme gmbh asked us' });
    expect(named.body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(named.body.errors?.[0].extensions.errors).toEqual([
      { parameter: 'reason', message: 'must not name the customer: it is kept after the erasure' },
    ]);
    const blank = await graphql(scene.gateway, internal, ERASE, { customerId: scene.world.customer.id, reason: '  ' });
    expect(blank.body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    const unknown = await graphql(scene.gateway, internal, ERASE, { customerId: 'no-such-customer', reason: 'Ticket 1' });
    expect(unknown.body.errors?.[0].extensions.code).toBe('NOT_FOUND');
    const byBroker = await graphql(scene.gateway, broker, ERASE, { customerId: scene.world.customer.id, reason: 'Ticket 1' });
    expect(byBroker.body.errors?.[0].extensions.code).toBe('FORBIDDEN');
    expect((await scene.gateway.em().findOneOrFail(Customer, { id: scene.world.customer.id })).erasedAt).toBeNull();
  });
});
