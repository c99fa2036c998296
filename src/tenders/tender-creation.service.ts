import type { EntityManager } from '@mikro-orm/core';
import { assertMay } from '../access/access-policy';
import type { Viewer } from '../access/viewer';
import { badInput, type FieldProblem } from '../platform/errors/domain-error';
import { Address } from '../parties/address.embeddable';
import { BrokerCompany } from '../parties/broker-company.entity';
import { Customer } from '../parties/customer.entity';
import { Person } from '../parties/person.entity';
import { LineOfBusiness } from './line-of-business.entity';
import type { AddressInput, CreateTenderInput, PersonInput } from './tender-lifecycle.types';
import { TenderHistoryEntry } from './tender-history-entry.entity';
import { Tender } from './tender.entity';
import { TenderStatus, statusChangeKey } from './tender-status';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const REGIONS = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
const MAX_RISK_BYTES = 16 * 1024;

/** A two-letter code that names a real region (ISO 3166-1 alpha-2). */
const isCountryCode = (code: string) => /^[A-Z]{2}$/.test(code) && ![undefined, 'Unknown Region'].includes(REGIONS.of(code));

function text(problems: FieldProblem[], parameter: string, value: string | undefined, max: number, required = true): void {
  const trimmed = value?.trim() ?? '';
  if ((required && trimmed === '') || (value?.length ?? 0) > max) {
    problems.push({ parameter, message: required ? `required, at most ${max} characters` : `at most ${max} characters` });
  }
}

function checkAddress(problems: FieldProblem[], at: string, address: AddressInput): void {
  text(problems, `${at}.street`, address.street, 200, false);
  text(problems, `${at}.houseNumber`, address.houseNumber, 20, false);
  text(problems, `${at}.zip`, address.zip, 20, false);
  text(problems, `${at}.city`, address.city, 100, false);
  if (address.country !== '' && !isCountryCode(address.country)) problems.push({ parameter: `${at}.country`, message: 'must be a two-letter ISO 3166 code such as DE, or empty' });
}

function checkPerson(problems: FieldProblem[], at: string, person: PersonInput): void {
  text(problems, `${at}.accountId`, person.accountId, 64);
  if (!EMAIL.test(person.email) || person.email.length > 254) problems.push({ parameter: `${at}.email`, message: 'must be an email address' });
  text(problems, `${at}.firstName`, person.firstName, 100);
  text(problems, `${at}.lastName`, person.lastName, 100);
  text(problems, `${at}.salutation`, person.salutation, 20, false);
}

/** `createTender`: the user interface's path (spec 1), for internal tokens only. */
export class TenderCreationService {
  constructor(
    private readonly em: EntityManager,
    private readonly viewer: Viewer,
  ) {}

  async create(input: CreateTenderInput): Promise<Tender> {
    assertMay(this.viewer, 'createTender');
    const problems: FieldProblem[] = [];
    text(problems, 'product', input.product, 200);
    if (!Number.isFinite(input.taxRate) || input.taxRate < 0 || input.taxRate > 1) problems.push({ parameter: 'taxRate', message: 'must be between 0 and 1' });
    const customer = input.customer;
    if (customer.id === undefined || customer.id === null) {
      text(problems, 'customer.companyId', customer.companyId, 64);
      text(problems, 'customer.name', customer.name, 200);
      if (customer.address) checkAddress(problems, 'customer.address', customer.address);
    }
    checkPerson(problems, 'submitter', input.submitter);
    if (input.personInCharge) checkPerson(problems, 'personInCharge', input.personInCharge);
    if (input.riskInformation && Buffer.byteLength(JSON.stringify(input.riskInformation)) > MAX_RISK_BYTES) {
      problems.push({ parameter: 'riskInformation', message: 'at most 16 KiB of JSON' });
    }
    const [lineOfBusiness, brokerCompany, existingCustomer] = await Promise.all([
      this.em.findOne(LineOfBusiness, { id: input.lineOfBusinessId }),
      this.em.findOne(BrokerCompany, { id: input.brokerCompanyId }),
      customer.id ? this.em.findOne(Customer, { id: customer.id }) : Promise.resolve(null),
    ]);
    if (!lineOfBusiness) problems.push({ parameter: 'lineOfBusinessId', message: 'no line of business has this id' });
    if (!brokerCompany) problems.push({ parameter: 'brokerCompanyId', message: 'no broker company has this id' });
    if (customer.id && !existingCustomer) problems.push({ parameter: 'customer.id', message: 'no customer has this id' });
    if (problems.length > 0) throw badInput('The tender is invalid', problems);

    const now = new Date();
    const tender = this.em.create(Tender, {
      product: input.product.trim(),
      status: TenderStatus.QUOTES_AVAILABLE,
      taxRate: input.taxRate,
      lineOfBusiness: lineOfBusiness!,
      brokerCompany: brokerCompany!,
      customer: existingCustomer ?? this.em.create(Customer, { companyId: customer.companyId!.trim(), name: customer.name!.trim(), address: new Address(customer.address ?? {}) }),
      personInCharge: await this.person(brokerCompany!, input.personInCharge ?? input.submitter),
      riskInformation: input.riskInformation ?? null,
      changesMetadata: { [statusChangeKey(TenderStatus.QUOTES_AVAILABLE)]: now.toISOString() },
      createdAt: now,
      updatedAt: now,
    });
    this.em.create(TenderHistoryEntry, {
      tender,
      at: now,
      actor: this.viewer.appId,
      actorRole: this.viewer.role,
      fromStatus: null,
      toStatus: TenderStatus.QUOTES_AVAILABLE,
      reason: null,
    });
    await this.em.flush();
    return tender;
  }

  /** The broker company's user with this account id, created on first sight, details kept current. */
  private async person(brokerCompany: BrokerCompany, input: PersonInput): Promise<Person> {
    const person = (await this.em.findOne(Person, { brokerCompany, accountId: input.accountId })) ?? this.em.create(Person, { brokerCompany, ...input });
    this.em.assign(person, { email: input.email, firstName: input.firstName, lastName: input.lastName, salutation: input.salutation });
    return person;
  }
}
