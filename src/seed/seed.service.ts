import type { EntityManager } from '@mikro-orm/core';
import { bulkInsert } from '../platform/db/bulk-insert';
import { DomainError } from '../platform/errors/domain-error';
import { Insurer } from '../insurers';
import { BrokerCompany, Customer, Person } from '../parties';
import { LineOfBusiness, TenderInvitation, partiesChanged, Tender, TenderStatus, statusChangeKey } from '../tenders';

interface SeedOptions {
  tenders: number;
  /** Same seed and reference time, same data (ids included). */
  seed: number;
  /** Tenders are created in the two years before this instant; default: the start of the current UTC day. */
  referenceTime?: Date;
  /** Base URL the seeded insurers' quote APIs point at. */
  insurerApiUrl?: string;
  onProgress?: (done: number, total: number) => void;
}

export interface SeedResult {
  tenders: number;
  insurers: Insurer[];
  brokerCompanies: BrokerCompany[];
  linesOfBusiness: LineOfBusiness[];
}

export const PRODUCTS: Record<string, string[]> = {
  Cyber: ['Cyber Protect', 'Cyber Risk Plus', 'Cyber SME'],
  'D&O': ['D&O Executive', 'D&O Start-up'],
  'Professional Indemnity': ['PI Consultants', 'PI IT Services'],
  'General Liability': ['Business Liability', 'Product Liability'],
  Property: ['Commercial Property', 'Business Interruption'],
  Marine: ['Cargo', 'Hull'],
};

const INSURER_NAMES = [
  'Northwind Assurance',
  'Bluefin Insurance',
  'Harbor Mutual',
  'Summit Specialty',
  'Evergreen Versicherung',
  'Atlas Underwriters',
  'Meridian Insurance',
  'Keystone Re',
];

/** Status mix of a live book: mostly open and successful, some closed and reopened. */
const STATUS_WEIGHTS: { value: TenderStatus; weight: number }[] = [
  { value: TenderStatus.QUOTES_AVAILABLE, weight: 25 },
  { value: TenderStatus.IN_NEGOTIATION, weight: 15 },
  { value: TenderStatus.IN_COVERNOTE, weight: 10 },
  { value: TenderStatus.REOPENED, weight: 5 },
  { value: TenderStatus.SUCCESSFUL, weight: 25 },
  { value: TenderStatus.CLOSED, weight: 20 },
];

/** Statuses a tender passes through on its way to `status`, after QUOTES_AVAILABLE. */
const PATH: Record<TenderStatus, TenderStatus[]> = {
  QUOTES_AVAILABLE: [],
  IN_NEGOTIATION: [TenderStatus.IN_NEGOTIATION],
  IN_COVERNOTE: [TenderStatus.IN_NEGOTIATION, TenderStatus.IN_COVERNOTE],
  REOPENED: [TenderStatus.CLOSED, TenderStatus.REOPENED],
  SUCCESSFUL: [TenderStatus.IN_COVERNOTE, TenderStatus.SUCCESSFUL],
  CLOSED: [TenderStatus.CLOSED],
};

const BATCH = 5000;

/** The path segment of a seeded insurer at the simulator. */
export const insurerSlug = (name: string): string => name.toLowerCase().replace(/\W+/g, '-');

const startOfUtcDay = (date: Date) => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
const DAY = 24 * 3600 * 1000;

/**
 * Deterministic, realistic demo and benchmark data. Reference data (lines of business, insurers) is reused
 * when it exists; broker companies, people, customers and tenders are added.
 */
export class SeedService {
  constructor(private readonly em: EntityManager) {}

  async run(options: SeedOptions): Promise<SeedResult> {
    // Loaded here, not at start-up: faker's locales take a third of a second to load.
    const { Faker, de, en, fr } = await import('@faker-js/faker');
    const faker = new Faker({ locale: [de, fr, en] });
    faker.seed(options.seed);
    const em = this.em;

    const linesOfBusiness = await this.ensure(LineOfBusiness, Object.keys(PRODUCTS), (name) => ({ id: faker.string.uuid(), name }));
    const insurers = await this.ensure(Insurer, INSURER_NAMES, (name) => ({
      id: faker.string.uuid(),
      name,
      quoteApiUrl: `${options.insurerApiUrl ?? 'http://127.0.0.1:4100'}/insurers/${insurerSlug(name)}`,
      createdAt: new Date(),
    }));

    const address = () => {
      const empty = faker.number.float() < 0.05;
      return {
        street: empty ? '' : faker.location.street(),
        houseNumber: empty || faker.number.float() < 0.1 ? '' : faker.location.buildingNumber(),
        zip: empty ? '' : faker.location.zipCode(),
        city: empty ? '' : faker.location.city(),
        country: empty ? '' : faker.helpers.arrayElement(['DE', 'AT', 'CH', 'FR', 'NL', 'GB']),
      };
    };

    const brokerCompanyRows = Array.from({ length: 12 }, () => ({
      id: faker.string.uuid(),
      companyId: `BRK-${faker.string.numeric(6)}`,
      email: faker.internet.email({ provider: 'broker.example' }).toLowerCase(),
      name: `${faker.company.name()} Insurance Brokers`,
      address: address(),
    }));
    if (await em.count(BrokerCompany, { id: brokerCompanyRows[0].id })) {
      throw new DomainError('CONFLICT', `The data of seed ${options.seed} is present already; choose another --seed`);
    }
    const brokerCompanies = brokerCompanyRows.map((row) => em.create(BrokerCompany, row));
    const people = brokerCompanies.flatMap((brokerCompany) =>
      Array.from({ length: 5 }, () => {
        const firstName = faker.person.firstName();
        const lastName = faker.person.lastName();
        return em.create(Person, {
          id: faker.string.uuid(),
          accountId: `ACC-${faker.string.numeric(8)}`,
          email: faker.internet.email({ firstName, lastName, provider: 'broker.example' }).toLowerCase(),
          firstName,
          lastName,
          salutation: faker.helpers.arrayElement(['Mr', 'Ms', 'Dr', '']),
          brokerCompany,
        });
      }),
    );
    const customers = Array.from({ length: Math.min(5000, Math.max(20, Math.ceil(options.tenders / 10))) }, () =>
      em.create(Customer, {
        id: faker.string.uuid(),
        companyId: `CUS-${faker.string.numeric(8)}`,
        name: faker.company.name(),
        address: address(),
      }),
    );
    await em.flush();

    const now = (options.referenceTime ?? startOfUtcDay(new Date())).getTime();
    const tenderTable = em.getMetadata().get(Tender.name).tableName;
    const invitationTable = em.getMetadata().get(TenderInvitation.name).tableName;
    for (let done = 0; done < options.tenders;) {
      const size = Math.min(BATCH, options.tenders - done);
      const tenders: Record<string, unknown>[] = [];
      const invitations: Record<string, unknown>[] = [];
      for (let i = 0; i < size; i++) {
        const lineOfBusiness = faker.helpers.arrayElement(linesOfBusiness);
        const person = faker.helpers.arrayElement(people);
        const status = faker.helpers.weightedArrayElement(STATUS_WEIGHTS);
        const createdAt = new Date(now - faker.number.int({ min: 1, max: 730 * DAY }));
        const changesMetadata: Record<string, string> = { [statusChangeKey(TenderStatus.QUOTES_AVAILABLE)]: createdAt.toISOString() };
        let changedAt = createdAt.getTime();
        for (const step of PATH[status]) {
          changedAt = Math.min(now, changedAt + faker.number.int({ min: 3600_000, max: 30 * DAY }));
          changesMetadata[statusChangeKey(step)] = new Date(changedAt).toISOString();
        }
        const invited = faker.helpers.arrayElements(insurers, { min: 1, max: 4 });
        const id = faker.string.uuid();
        tenders.push({
          id,
          product: faker.helpers.arrayElement(PRODUCTS[lineOfBusiness.name]),
          status,
          tax_rate: faker.helpers.arrayElement([0.19, 0.19, 0.16, 0.1, 0.2, 0]),
          line_of_business_id: lineOfBusiness.id,
          customer_id: faker.helpers.arrayElement(customers).id,
          broker_company_id: person.brokerCompany!.id,
          person_in_charge_id: person.id,
          awarded_insurer_id: status === TenderStatus.SUCCESSFUL ? invited[0].id : null,
          changes_metadata: changesMetadata,
          created_at: createdAt,
          updated_at: new Date(changedAt),
          version: 1,
        });
        for (const insurer of invited)
          invitations.push({ id: faker.string.uuid(), tender_id: id, insurer_id: insurer.id, created_at: createdAt });
      }
      await em.transactional(async (tx) => {
        await bulkInsert(tx, tenderTable, tenders);
        await bulkInsert(tx, invitationTable, invitations);
        // Written past the tender code: every audience's entity tags change with it.
        await partiesChanged(tx);
      });
      done += size;
      options.onProgress?.(done, options.tenders);
    }
    return { tenders: options.tenders, insurers, brokerCompanies, linesOfBusiness };
  }

  /** Finds reference rows by name, creating the missing ones in the order given. */
  private async ensure<T extends { name: string }>(entity: new () => T, names: string[], make: (name: string) => Partial<T>): Promise<T[]> {
    const existing = await this.em.find<T>(entity, {});
    const byName = new Map(existing.map((row) => [row.name, row]));
    const rows = names.map((name) => {
      const fresh = make(name);
      return byName.get(name) ?? this.em.create<T>(entity, fresh as never);
    });
    await this.em.flush();
    return rows;
  }
}
