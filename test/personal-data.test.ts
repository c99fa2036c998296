import type { EntityManager, FilterQuery } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import type { PersonalField } from '../src/parties';
import { PERSONAL_DATA } from '../src/privacy';
import type { QuoteRequest } from '../src/quotes';
import { SubjectivityStage, SubjectivityStepKind } from '../src/quotes/quote-request-status';
import { SubjectivityStep, TrackedSubjectivity } from '../src/quotes/subjectivities/subjectivity.entity';
import { RiskAssessment } from '../src/risk';
import { TenderMessage } from '../src/messages';
import { AccessLink, LinkKind } from '../src/links';
import { MailMessage } from '../src/mail';
import { TenderHistoryEntry, TenderStatus, type Tender } from '../src/tenders';
import { addDocument } from './helpers/documents';
import { createTender, createWorld, receivedQuote, type World } from './helpers/fixtures';
import { graphql, startGateway, tokenFor, type Gateway } from './helpers/gateway';

/**
 * Driven by the declarations, not by a list of ours: every field a feature's part of the personal data (the
 * `PersonalData` port, privacy's `PERSONAL_DATA`) declares personal gets a distinctive value in the stored rows of
 * one customer; the export must show each (or, declared `exported: false`, none), and after the erasure every string
 * of each must be empty (or its row gone). A field declared but left out of an `erase` or an `export` fails here.
 */

/** Which rows of an entity are the customer's: an entity a part declares fields of needs its line here. */
const ROWS_OF_CUSTOMER: Record<string, (customerId: string, personIds: string[]) => FilterQuery<object>> = {
  Customer: (customerId) => ({ id: customerId }),
  Person: (_customerId, personIds) => ({ id: { $in: personIds } }),
  Tender: (customerId) => ({ customer: customerId }),
  TenderHistoryEntry: (customerId) => ({ tender: { customer: customerId } }),
  RiskAssessment: (customerId) => ({ tender: { customer: customerId } }),
  QuoteRequest: (customerId) => ({ tender: { customer: customerId } }),
  QuoteOption: (customerId) => ({ quoteRequest: { tender: { customer: customerId } } }),
  Document: (customerId) => ({ tender: { customer: customerId } }),
  TenderMessage: (customerId) => ({ tender: { customer: customerId } }),
  // A link and a mail name their tender by id only: the customer's tenders, as found when they are made.
  AccessLink: () => ({ tenderId: { $in: customerTenderIds } }),
  TrackedSubjectivity: (customerId) => ({ tender: { customer: customerId } }),
  SubjectivityStep: (customerId) => ({ subjectivity: { tender: { customer: customerId } } }),
  MailMessage: () => ({ tenderId: { $in: customerTenderIds } }),
};

/** The ids of the customer's tenders (customerWithEverything finds them). */
let customerTenderIds: string[] = [];

/**
 * Fields no part declares, marked like the declared ones: the check must find them missing (a field a part would
 * forget), so the test shows it can fail. The tender's product is exported but kept; an insurer's reference neither.
 */
const UNDECLARED: readonly PersonalField[] = [
  { entity: 'Tender', property: 'product' },
  { entity: 'QuoteRequest', property: 'insurerReference', exported: false },
];

type Json = unknown;

/** Every string in `value` passed through `change`, at any depth. */
function mapStrings(value: Json, change: (text: string) => string): Json {
  if (typeof value === 'string') return change(value);
  if (Array.isArray(value)) return value.map((item: Json) => mapStrings(item, change));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, change)]));
  }
  return value;
}

/** The strings at `path` (`a.b`, `list[].text`) of `value` passed through `change`; the rest as it was. */
function mapAt(value: Json, path: readonly string[], change: (text: string) => string): Json {
  if (path.length === 0) return mapStrings(value, change);
  if (value === null || typeof value !== 'object') return value;
  const [head, ...rest] = path;
  const name = head.replace(/\[\]$/, '');
  const item = (value as Record<string, Json>)[name];
  const changed =
    head.endsWith('[]') && Array.isArray(item) ? item.map((each: Json) => mapAt(each, rest, change)) : mapAt(item, rest, change);
  return { ...value, [name]: changed };
}

const stringsAt = (entity: object, field: PersonalField): string[] => {
  const found: string[] = [];
  mapAt(entity, field.property.split('.'), (text) => {
    found.push(text);
    return text;
  });
  return found;
};

const nameOf = (field: PersonalField) => `${field.entity}.${field.property}`;

/**
 * A value no other text of the world holds, unique per field and row; where the column is shorter (a country's two
 * letters), a section sign and a Greek letter of its own per field.
 */
function markerFor(em: EntityManager, field: PersonalField, index: number, row: number): string {
  const [name, part] = field.property.split('.');
  const property = em.getMetadata().find(field.entity)?.properties[name];
  const length = (part ? property?.embeddedProps?.[part] : property)?.length;
  const marker = `pdmark${index}x${row}q`;
  return length !== undefined && length < marker.length ? `§${String.fromCharCode(0x3b1 + index)}` : marker;
}

interface Marked {
  field: PersonalField;
  rows: { id: string; marker: string }[];
}

/** Gives every string of the field, in every row of the customer, a marker of its own; answers where they went. */
async function mark(em: EntityManager, customerId: string, personIds: string[], fields: readonly PersonalField[]): Promise<Marked[]> {
  const marked: Marked[] = [];
  for (const [index, field] of fields.entries()) {
    const rowsOf = ROWS_OF_CUSTOMER[field.entity];
    expect(rowsOf, `which rows of ${field.entity} are the customer's: add it to ROWS_OF_CUSTOMER`).toBeDefined();
    const property = field.property.split('.')[0].replace(/\[\]$/, '');
    const rows = await em.find(field.entity, rowsOf(customerId, personIds), { populate: [property] as never[] });
    const done: Marked['rows'] = [];
    for (const [at, row] of (rows as Record<string, unknown>[]).entries()) {
      if (stringsAt(row, field).length === 0) continue;
      const marker = markerFor(em, field, index, at);
      const next = (mapAt(row, field.property.split('.'), () => marker) as Record<string, unknown>)[property];
      const current = row[property];
      // An embeddable stays its class; a JSON value is replaced, so the change is seen.
      if (current !== null && typeof current === 'object' && !Array.isArray(current) && current.constructor !== Object)
        Object.assign(current, next);
      else row[property] = next;
      done.push({ id: row.id as string, marker });
    }
    expect(done.length, `the world holds no text in ${nameOf(field)}: give the test one to check`).toBeGreaterThan(0);
    marked.push({ field, rows: done });
  }
  await em.flush();
  return marked;
}

/** What the export misses: a field's marker absent, or present where the field is declared `exported: false`. */
function exportProblems(text: string, marked: readonly Marked[]): string[] {
  return marked.flatMap(({ field, rows }) =>
    rows.flatMap(({ marker }) => {
      if (field.exported === false) return text.includes(marker) ? [`${nameOf(field)}: exported, yet declared exported: false`] : [];
      return text.includes(marker) ? [] : [`${nameOf(field)}: not in the export`];
    }),
  );
}

/** What the erasure left: a string of a marked field that is not empty, in a row still there. */
async function erasureProblems(em: EntityManager, marked: readonly Marked[]): Promise<string[]> {
  const problems: string[] = [];
  for (const { field, rows } of marked) {
    const property = field.property.split('.')[0].replace(/\[\]$/, '');
    const left = await em.find(field.entity, { id: { $in: rows.map((row) => row.id) } }, { populate: [property] as never[] });
    for (const row of left as object[]) {
      if (stringsAt(row, field).some((text) => text !== '')) problems.push(`${nameOf(field)}: not erased`);
    }
  }
  return problems;
}

let gateway: Gateway;
let world: World;
let internal: string;

beforeAll(async () => {
  gateway = await startGateway({ dispatch: false });
  world = await createWorld(gateway.em());
  internal = await tokenFor(gateway, Role.INTERNAL);
});
afterAll(() => gateway?.close());

/** One customer's tender holding a value in every place the parts declare, through the fixtures and the API. */
async function customerWithEverything(): Promise<Tender> {
  const em = gateway.em();
  const tender = await createTender(em, world, { status: TenderStatus.QUOTES_AVAILABLE, invited: [world.insurers[0]] });
  await createTender(em, world);
  tender.riskInformation = { note: 'risk', turnover: { amount: 5_000_000, currency: 'EUR' }, employees: 42 };
  // The broker's reasons at a renewal (issue 42).
  Object.assign(tender, { renewalDecisionReason: 'Erika prefers another insurer', nonRenewalReason: 'Erika moves' });
  em.create(TenderHistoryEntry, { tender, at: new Date(), actor: 'ui', actorRole: Role.INTERNAL, toStatus: tender.status, reason: 'why' });
  const option = await receivedQuote(em, tender, world.insurers[1], 1234);
  Object.assign(option.quoteRequest, {
    riskInformation: { customer_name: 'Acme GmbH', website_url: 'https://acme.example/' },
    underwriterReason: 'reason',
    quoteNote: 'note',
    lastErrorDetail: 'error',
    failureDetail: 'failure',
  } satisfies Partial<QuoteRequest>);
  option.subjectivities = [{ text: 'sprinkler', stage: SubjectivityStage.PRE_BIND }];
  // The binding's copy of it, with a broker's response (issue 41).
  const tracked = em.create(TrackedSubjectivity, {
    tender,
    quoteRequest: option.quoteRequest,
    insurer: world.insurers[1],
    quoteOption: option,
    position: 0,
    stage: SubjectivityStage.PRE_BIND,
    text: 'sprinkler',
  });
  em.create(SubjectivityStep, {
    subjectivity: tracked,
    at: new Date(),
    actor: 'broker-app',
    actorRole: Role.BROKER,
    kind: SubjectivityStepKind.RESPONDED,
    text: 'Erika signed it',
  });
  em.create(RiskAssessment, {
    tender,
    product: tender.product,
    questionSetVersion: 1,
    answers: { contact_name: 'Erika', employees: 42 },
    sources: [],
  });
  em.create(TenderMessage, {
    tender,
    insurer: world.insurers[0],
    authorRole: Role.INSURER,
    authorAppId: 'insurer-app',
    text: 'Is Erika still the CFO?',
  });
  em.create(AccessLink, {
    kind: LinkKind.QUESTIONNAIRE,
    tenderId: tender.id,
    email: 'erika@acme.example',
    language: 'de',
    tokenHash: 'h'.repeat(43),
    salt: 's'.repeat(43),
    expiresAt: new Date(Date.now() + 86_400_000),
  });
  em.create(MailMessage, {
    messageId: '<pd@tender-exchange>',
    recipientAddress: 'person@broker.example',
    recipientName: 'Erika Muster',
    language: 'de',
    tenderId: tender.id,
    template: 'quote-received',
    data: { tenderId: tender.id, product: tender.product },
  });
  await em.flush();
  customerTenderIds = (await em.find('Tender', { customer: world.customer.id }, { fields: ['id'] })).map((row) => (row as Tender).id);
  const broker = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
  await addDocument(gateway, broker, { tenderId: tender.id, kind: 'RISK', filename: 'risk.pdf' });
  return tender;
}

describe("each feature's personal data (the PersonalData port)", () => {
  it('every field declared personal is in the export and empty after an erasure; a field left out is found', async () => {
    const declared = PERSONAL_DATA.flatMap((part) => part.fields);
    expect(new Set(declared.map(nameOf)).size, 'a field declared twice').toBe(declared.length);
    expect(declared.map(nameOf)).toEqual(
      expect.arrayContaining(['Customer.name', 'Person.email', 'Tender.riskInformation', 'Document.filename']),
    );

    const tender = await customerWithEverything();
    const em = gateway.em().fork();
    const persons = [((await em.findOneOrFail('Tender', { id: tender.id }, { fields: ['personInCharge'] })) as Tender).personInCharge.id];
    const marked = await mark(em, world.customer.id, persons, [...declared, ...UNDECLARED]);

    const exported = await graphql(gateway, internal, 'query($id: ID!) { customerDataExport(customerId: $id) }', { id: world.customer.id });
    expect(exported.body.errors).toBeUndefined();
    const text = JSON.stringify(exported.body.data.customerDataExport);
    const erased = await graphql(
      gateway,
      internal,
      'mutation($id: ID!) { eraseCustomer(customerId: $id, reason: "Ticket PD-1") { tenders } }',
      {
        id: world.customer.id,
      },
    );
    expect(erased.body.errors).toBeUndefined();
    const problems = [...exportProblems(text, marked), ...(await erasureProblems(gateway.em().fork(), marked))];

    // Only the undeclared fields: every declared one is exported and erased.
    expect([...new Set(problems)].sort()).toEqual(['QuoteRequest.insurerReference: not erased', 'Tender.product: not erased']);
  });
});
