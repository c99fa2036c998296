import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { Customer, Person } from '../src/parties';
import { CustomerErasure, ErasureTrigger, eraseCustomer } from '../src/privacy';
import { QuoteRequest } from '../src/quotes';
import { Tender, TenderHistoryEntry, TenderStatus } from '../src/tenders';
import { Document, DocumentStores } from '../src/documents';
import { createClient, getJson, graphql, requestToken, graphqlData } from './helpers/gateway';
import { withGateway } from './helpers/scene';
import { PDF, createUpload, put } from './helpers/documents';
import { whereMarkersAre } from './helpers/privacy';

/**
 * Issue 37, point 3: after eraseCustomer the customer's tenders take no new personal data (documents, free-text
 * reasons, quote requests, answers to the requests that were open), and erasing again removes whatever personal data
 * is there, recorded as an erasure of its own. On SQLite and PostgreSQL (DATABASE_URL).
 */
const CREATE_TENDER = `mutation ($input: CreateTenderInput!) { createTender(input: $input) { id customer { id } } }`;
const ERASE = `mutation ($customerId: ID!, $reason: String!) {
  eraseCustomer(customerId: $customerId, reason: $reason) { customerId erasedAt reason tenders documents persons alreadyErased }
}`;
const CLOSE = 'mutation($id: ID!, $reason: String!) { closeTender(tenderId: $id, reason: $reason) { status } }';
const REOPEN = 'mutation($id: ID!, $reason: String) { reopenTender(tenderId: $id, reason: $reason) { status } }';
const REQUEST_QUOTES = 'mutation ($input: RequestQuotesInput!) { requestQuotes(input: $input) { id status insurer { id } } }';
const SUBMIT = 'mutation($input: SubmitManualQuoteInput!) { submitManualQuote(input: $input) { id status } }';

let internal: string;
let broker: string;
let manualId: string;
let manualToken: string;
let customers = 0;

// No dispatcher: the quote requests stay open until the erasure cancels them (an unreachable insurer would end FAILED first).
const scene = withGateway({ per: 'file', world: true, dispatch: false });

beforeAll(async () => {
  internal = await scene.token(Role.INTERNAL);
  broker = await scene.token(Role.BROKER);
  const created = await gql(internal, 'mutation { createInsurer(input: { name: "Paper Insurance", integration: MANUAL }) { id } }');
  manualId = created.createInsurer.id;
  manualToken = await requestToken(scene.gateway, await createClient(scene.gateway, Role.INSURER, { insurerId: manualId }));
});

const gql = (token: string, query: string, variables?: Record<string, unknown>) => graphqlData(scene.gateway, token, query, variables);

/** A new customer (its name a marker) with one tender of the first broker company, a person in charge of its own. */
async function customerWithTender(marker: string): Promise<{ tenderId: string; customerId: string }> {
  customers += 1;
  const { createTender } = await gql(internal, CREATE_TENDER, {
    input: {
      product: 'Cyber Protect',
      lineOfBusinessId: scene.world.lines.cyber.id,
      brokerCompanyId: scene.world.brokers[0].id,
      taxRate: 0.19,
      customer: { name: `${marker} GmbH`, companyId: `${marker}-ID` },
      submitter: {
        accountId: `${marker}-account-${customers}`,
        email: `person${customers}@broker.example`,
        firstName: 'Ottilie',
        lastName: marker,
      },
      riskInformation: { note: `${marker} risk` },
    },
  });
  return { tenderId: createTender.id, customerId: createTender.customer.id };
}

const erase = (customerId: string, reason: string) => graphql(scene.gateway, internal, ERASE, { customerId, reason });

describe("an erased customer's tenders take no new personal data", () => {
  it('new documents are CONFLICT, an earlier upload URL opens nothing, reasons must be empty, open quote requests end CANCELLED and take no answer', async () => {
    const marker = 'Qxoutlived';
    const { tenderId, customerId } = await customerWithTender(marker);
    const requested = (
      await gql(broker, REQUEST_QUOTES, {
        input: {
          tenderId,
          insurerIds: [manualId, scene.world.insurers[0].id],
          limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }],
          riskInformation: { typeOfBusiness: `${marker} trade` },
        },
      })
    ).requestQuotes as { id: string; status: string; insurer: { id: string } }[];
    const manual = requested.find((request) => request.insurer.id === manualId)!;
    expect(manual.status).toBe('AWAITING_MANUAL');
    // An upload slot made before the erasure: its URL must not bring bytes in after it.
    const slot = await createUpload(scene.gateway, broker, { tenderId, kind: 'RISK', filename: 'before.pdf' }, PDF);
    expect(slot.body.errors).toBeUndefined();

    const erased = await erase(customerId, 'Ticket PRIV-31');
    expect(erased.body.data.eraseCustomer).toMatchObject({ alreadyErased: false, tenders: 1 });

    // Documents: none of any kind a client adds, whoever adds it (a document may hold anything personal).
    for (const kind of ['RISK', 'OTHER'] as const) {
      const refused = await createUpload(scene.gateway, broker, { tenderId, kind, filename: `${marker}-letter.pdf` }, PDF);
      expect(refused.body.errors?.[0].extensions.code, JSON.stringify(refused.body)).toBe('CONFLICT');
      expect(refused.body.errors[0].message).toMatch(/erased: the tender takes no new documents/);
    }
    const late = await put(slot.body.data.createDocumentUpload.uploadUrl, PDF);
    expect(late.status).toBe(404);
    await late.arrayBuffer();
    expect(await scene.gateway.em().fork().count(Document, { tender: tenderId })).toBe(0);

    // Reasons: free text could name a person, so a status change of an erased tender takes none.
    const named = await graphql(scene.gateway, broker, CLOSE, { id: tenderId, reason: `Ottilie ${marker} called` });
    expect(named.status).toBe(400);
    expect(named.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      errors: [
        { parameter: 'reason', message: expect.stringMatching(/^must be empty: the personal data of this tender's customer was erased/) },
      ],
    });
    expect((await scene.gateway.em().fork().findOneOrFail(Tender, tenderId)).status).toBe(TenderStatus.QUOTES_AVAILABLE);
    expect((await gql(broker, CLOSE, { id: tenderId, reason: '' })).closeTender.status).toBe('CLOSED');
    const reopenNamed = await graphql(scene.gateway, broker, REOPEN, { id: tenderId, reason: `for ${marker}` });
    expect(reopenNamed.body.errors?.[0].extensions.errors).toEqual([expect.objectContaining({ parameter: 'reason' })]);
    expect((await gql(broker, REOPEN, { id: tenderId })).reopenTender.status).toBe('REOPENED');
    const history = await scene.gateway.em().fork().find(TenderHistoryEntry, { tender: tenderId });
    expect(history.map((entry) => [entry.toStatus, entry.reason]).slice(-2)).toEqual([
      ['CLOSED', null],
      ['REOPENED', null],
    ]);
    expect(history.every((entry) => entry.reason === null)).toBe(true);

    // Quote requests: none new; the open ones were cancelled by the erasure, so no answer brings text in.
    const more = await graphql(scene.gateway, broker, REQUEST_QUOTES, {
      input: {
        tenderId,
        insurerIds: [scene.world.insurers[1].id],
        limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }],
        riskInformation: {},
      },
    });
    expect(more.body.errors?.[0].extensions.code).toBe('CONFLICT');
    const requests = await scene.gateway
      .em()
      .fork()
      .find(QuoteRequest, { tender: tenderId }, { orderBy: { id: 'asc' } });
    expect(requests.map((request) => [request.status, request.failureReason])).toEqual([
      ['CANCELLED', 'customer erased'],
      ['CANCELLED', 'customer erased'],
    ]);
    const answer = await graphql(scene.gateway, manualToken, SUBMIT, {
      input: { quoteRequestId: manual.id, decision: 'DECLINED', reason: `${marker} is too risky`, options: [] },
    });
    expect(answer.body.errors?.[0].extensions.code).toBe('CONFLICT');

    // A status change that read the tender before the erasure committed cannot store its reason after it: the
    // erasure moved the tender's version on (optimistic lock).
    const stillOpen = await customerWithTender('Qxraced');
    const loaded = await scene.gateway.em().fork().findOneOrFail(Tender, stillOpen.tenderId);
    await erase(stillOpen.customerId, 'Ticket PRIV-32');
    expect((await scene.gateway.em().fork().findOneOrFail(Tender, stillOpen.tenderId)).version).toBeGreaterThan(loaded.version);

    expect(await whereMarkersAre(scene.gateway.em().fork(), [marker, 'Qxraced'])).toEqual([]);
  });
});

describe('erasing again', () => {
  it('removes whatever personal data the tenders hold by then, keeps the first erasure time, and is recorded as an erasure of its own', async () => {
    const marker = 'Qxagain';
    const { tenderId, customerId } = await customerWithTender(marker);
    await gql(broker, REQUEST_QUOTES, {
      input: { tenderId, insurerIds: [manualId], limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }], riskInformation: {} },
    });
    const first = (await erase(customerId, 'Ticket PRIV-41')).body.data.eraseCustomer;
    expect(first).toMatchObject({ alreadyErased: false, documents: 0 });
    expect(await whereMarkersAre(scene.gateway.em().fork(), [marker])).toEqual([]);

    // What reached the tender after the first erasure: through the API, an advice export (a document of the tender);
    // and, as a gateway before this rule stored them (or a write racing the erasure), a history reason, an insurer's
    // text, risk information and a name of the person in charge.
    await gql(broker, 'mutation($id: ID!) { exportProposal(tenderId: $id, format: JSON) { sha256 } }', { id: tenderId });
    // The advice is free text that may name the customer: refused, as a status change's reason is.
    const advised = await graphql(
      scene.gateway,
      broker,
      'mutation($id: ID!, $advice: AdviceInput) { exportProposal(tenderId: $id, format: PDF, advice: $advice) { sha256 } }',
      { id: tenderId, advice: { wishesAndNeeds: `${marker} wants cover`, recommendation: 'Alpha', reasons: 'Cheapest' } },
    );
    expect(advised.body.errors[0].extensions.errors).toEqual([{ parameter: 'advice', message: expect.stringContaining('must be absent') }]);
    const em = scene.gateway.em().fork();
    const tender = await em.findOneOrFail(Tender, tenderId, { populate: ['personInCharge', 'riskInformation'] });
    em.create(TenderHistoryEntry, {
      tender,
      at: new Date(),
      actor: 'legacy',
      actorRole: Role.BROKER,
      fromStatus: TenderStatus.QUOTES_AVAILABLE,
      toStatus: TenderStatus.CLOSED,
      reason: `${marker} moved abroad`,
    });
    tender.riskInformation = { note: `${marker} again`, employees: 7 };
    await em.flush();
    await em.nativeUpdate(Person, { id: tender.personInCharge.id }, { firstName: `${marker}First` });
    await em.nativeUpdate(QuoteRequest, { tender: tenderId }, { underwriterReason: `${marker} declined`, quoteNote: `${marker} note` });
    const before = await whereMarkersAre(scene.gateway.em().fork(), [marker]);
    expect(before.sort()).toEqual(['person: Qxagain', 'quote_request: Qxagain', 'tender: Qxagain', 'tender_history_entry: Qxagain']);
    expect((await getJson(scene.gateway, `/api/v1/tenders/${tenderId}/documents`, broker)).body.payload).toHaveLength(1);

    const again = await erase(customerId, 'Ticket PRIV-42');
    expect(again.body.errors).toBeUndefined();
    expect(again.body.data.eraseCustomer).toMatchObject({
      customerId,
      reason: 'Ticket PRIV-42',
      tenders: 1,
      documents: 1,
      persons: 1,
      alreadyErased: true,
    });
    expect(await whereMarkersAre(scene.gateway.em().fork(), [marker])).toEqual([]);
    expect((await getJson(scene.gateway, `/api/v1/tenders/${tenderId}/documents`, broker)).body.payload).toEqual([]);
    const rest = await getJson(scene.gateway, `/api/v1/tenders/${tenderId}`, broker);
    expect(rest.body).toMatchObject({ erased_at: first.erasedAt, customer: { name: '' }, person_in_charge: { first_name: '' } });
    expect(rest.body).not.toHaveProperty('risk_information');
    const kept = await scene.gateway
      .em()
      .fork()
      .findOneOrFail(Tender, tenderId, { populate: ['riskInformation'] });
    expect(kept.riskInformation).toEqual({ note: '', employees: 7 });
    expect((await scene.gateway.em().fork().findOneOrFail(Customer, customerId)).erasedAt?.toISOString()).toBe(first.erasedAt);
    const records = await scene.gateway
      .em()
      .fork()
      .find(CustomerErasure, { customerId }, { orderBy: { erasedAt: 'asc' } });
    expect(records.map((record) => [record.reason, record.documents])).toEqual([
      ['Ticket PRIV-41', 0],
      ['Ticket PRIV-42', 1],
    ]);
  });

  it('the retention sweep leaves an erased customer alone (it erases only customers not erased yet); a request erases it again', async () => {
    const { customerId } = await customerWithTender('Qxswept');
    await erase(customerId, 'Ticket PRIV-51');
    const services = { documents: { store: new DocumentStores(scene.gateway.config.documents) }, listeners: [] };
    const swept = await eraseCustomer(scene.gateway.em().fork(), services, {
      customerId,
      reason: 'RETENTION_PERSONAL_DATA=1y',
      by: 'retention',
      trigger: ErasureTrigger.RETENTION,
      endedBefore: new Date(),
    });
    expect(swept).toMatchObject({ alreadyErased: true, erasure: { reason: 'Ticket PRIV-51' } });
    expect(await scene.gateway.em().fork().count(CustomerErasure, { customerId })).toBe(1);
    const again = await erase(customerId, 'Ticket PRIV-52');
    expect(again.body.data.eraseCustomer.alreadyErased).toBe(true);
    expect(await scene.gateway.em().fork().count(CustomerErasure, { customerId })).toBe(2);
  });
});

describe('the reason of an erasure', () => {
  it.each([
    ['in capitals', 'QXNAMED GMBH asked us'],
    ['in full-width letters', 'Ｑｘｎａｍｅｄ GmbH asked us'],
    ['with a combining grapheme joiner (default ignorable) inside', 'Qxna\u034Fmed GmbH asked us'],
    ['with a variation selector inside', 'Qxnamed\uFE00 GmbH asked us'],
    ['with two spaces', 'Qxnamed  GmbH asked us'],
    ['by its company id in small letters', 'see qxnamed-id'],
  ])('naming the customer %s is refused with BAD_USER_INPUT on reason, and the customer stays', async (_, reason) => {
    const { customerId } = await customerWithTender('Qxnamed');
    const { status, body } = await erase(customerId, reason);
    expect(status).toBe(400);
    expect(body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      errors: [{ parameter: 'reason', message: 'must not name the customer: it is kept after the erasure' }],
    });
    expect((await scene.gateway.em().fork().findOneOrFail(Customer, customerId)).erasedAt).toBeNull();
  });

  it('with a zero-width space inside the name is refused by the text rule, naming U+200B', async () => {
    const { customerId } = await customerWithTender('Qxhidden');
    const { status, body } = await erase(customerId, 'Qx\u200Bhidden GmbH asked us');
    expect(status).toBe(400);
    expect(body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      errors: [{ parameter: 'reason', message: expect.stringContaining('U+200B') }],
    });
    expect((await scene.gateway.em().fork().findOneOrFail(Customer, customerId)).erasedAt).toBeNull();
  });
});
