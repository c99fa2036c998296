import type { EntityManager } from '@mikro-orm/core';
import { Insurer } from '../../src/insurers';
import { Address, BrokerCompany, Customer, Person } from '../../src/parties';
import { LineOfBusiness, TenderInvitation, Tender, TenderStatus, statusChangeKey } from '../../src/tenders';
import { QuoteOption, QuoteRequestStatus, QuoteRequest } from '../../src/quotes';
import { tenderChanged } from '../../src/tenders/feed/tender-feed';
import { newId } from '../../src/platform/db/ids';

const INSURER_NAMES = ['Alpha Insurance', 'Beta Insurance', 'Gamma Insurance'];

/**
 * A small, fully known world: two brokers, three insurers, two lines of business. `schemaBeforeQuoteTerms`: the
 * insurers are written as the schema stood before issue 27 (no `integration` column yet).
 */
export async function createWorld(em: EntityManager, { schemaBeforeQuoteTerms = false } = {}) {
  const lines = {
    cyber: em.create(LineOfBusiness, { name: 'Cyber' }),
    dno: em.create(LineOfBusiness, { name: 'D&O' }),
  };
  const insurers = schemaBeforeQuoteTerms
    ? await legacyInsurers(em)
    : INSURER_NAMES.map((name) => em.create(Insurer, { name, quoteApiUrl: `http://127.0.0.1:1/${name}`, createdAt: new Date() }));
  const brokers = ['First Brokers', 'Second Brokers'].map((name, i) =>
    em.create(BrokerCompany, {
      name,
      companyId: `BRK-${i}`,
      email: `office@broker${i}.example`,
      address: new Address({ street: 'Hauptstraße', houseNumber: '', zip: '10115', city: 'Berlin', country: 'DE' }),
    }),
  );
  const people = brokers.map((brokerCompany, i) =>
    em.create(Person, {
      accountId: `ACC-${i}`,
      email: `person${i}@broker.example`,
      firstName: 'Erika',
      lastName: `Muster${i}`,
      salutation: 'Ms',
      brokerCompany,
    }),
  );
  const customer = em.create(Customer, { companyId: 'CUS-1', name: 'Acme GmbH', address: new Address() });
  await em.flush();
  return { lines, insurers, brokers, people, customer };
}

export type World = Awaited<ReturnType<typeof createWorld>>;

async function legacyInsurers(em: EntityManager): Promise<Insurer[]> {
  const insurers: Insurer[] = [];
  for (const name of INSURER_NAMES) {
    const id = newId();
    await em
      .getConnection()
      .execute('insert into insurer (id, name, quote_api_url, created_at) values (?, ?, ?, ?)', [
        id,
        name,
        `http://127.0.0.1:1/${name}`,
        new Date(),
      ]);
    insurers.push(em.getReference(Insurer, id));
  }
  return insurers;
}

let clock = Date.parse('2026-01-01T00:00:00.000Z');

export async function createTender(
  em: EntityManager,
  world: World,
  options: {
    status?: TenderStatus;
    broker?: number;
    invited?: Insurer[];
    awardedInsurer?: Insurer;
    product?: string;
    line?: LineOfBusiness;
    createdAt?: Date;
    updatedAt?: Date;
    /** False on a schema from before the feed (`tender_feed`). */
    feed?: boolean;
  } = {},
): Promise<Tender> {
  clock += 60_000;
  const createdAt = options.createdAt ?? new Date(clock);
  const status = options.status ?? TenderStatus.QUOTES_AVAILABLE;
  const broker = options.broker ?? 0;
  const changesMetadata: Record<string, string> = { [statusChangeKey(TenderStatus.QUOTES_AVAILABLE)]: createdAt.toISOString() };
  changesMetadata[statusChangeKey(status)] = (options.updatedAt ?? createdAt).toISOString();
  const tender = em.create(Tender, {
    product: options.product ?? 'Cyber Protect',
    status,
    taxRate: 0.19,
    lineOfBusiness: options.line ?? world.lines.cyber,
    customer: world.customer,
    brokerCompany: world.brokers[broker],
    personInCharge: world.people[broker],
    awardedInsurer: options.awardedInsurer,
    changesMetadata,
    createdAt,
    updatedAt: options.updatedAt ?? createdAt,
  });
  for (const insurer of options.invited ?? []) em.create(TenderInvitation, { tender, insurer, createdAt });
  await em.flush();
  // As every write of the gateway does: what the tender's audiences see has changed (ETags, cached counts).
  if (options.feed !== false) await tenderChanged(em, { id: tender.id, brokerCompanyId: tender.brokerCompany.id });
  return tender;
}

/** A quote the tender received from `insurer` (as the dispatcher stores it), with one option. */
export async function receivedQuote(em: EntityManager, tender: Tender, insurer: Insurer, premium = 1000): Promise<QuoteOption> {
  const request = em.create(QuoteRequest, {
    tender,
    insurer,
    status: QuoteRequestStatus.QUOTED,
    limits: [{ insurance_sum: 1_000_000, deductible: 0 }],
    riskInformation: {},
    insurerReference: `Q-${tender.id}-${insurer.id}`,
    requestedBy: 'fixture',
    quotedAt: new Date(),
  });
  const option = em.create(QuoteOption, { quoteRequest: request, position: 0, insuranceSum: 1_000_000, deductible: 0, premium });
  em.create(TenderInvitation, { tender, insurer, createdAt: new Date() });
  await em.flush();
  return option;
}
