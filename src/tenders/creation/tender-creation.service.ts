import type { EntityManager } from '@mikro-orm/core';
import { assertMay, type Viewer } from '../../access';
import { badInput } from '../../platform/errors/domain-error';
import { LIMITS, jsonTextProblems } from '../../platform/validation/rules';
import { CreateTenderRules, inputColumnsOf } from './tender-creation.rules';
import { problemsOf } from '../../platform/validation/validate';
import { flushInTransaction } from '../../platform/db/flush-in-transaction';
import { Address, BrokerCompany, Customer, Person } from '../../parties';
import { LineOfBusiness } from '../line-of-business.entity';
import type { CreateTenderInput, PersonInput } from './tender-creation.types';
import { TenderHistoryEntry } from '../tender-history-entry.entity';
import { Tender } from '../tender.entity';
import { partiesChanged, tenderChanged } from '../feed/tender-feed';
import { TenderStatus, statusChangeKey } from '../tender-status';

/** `createTender`: the user interface's path (spec 1), for internal tokens only. */
export class TenderCreationService {
  constructor(
    private readonly em: EntityManager,
    private readonly viewer: Viewer,
  ) {}

  async create(input: CreateTenderInput): Promise<Tender> {
    assertMay(this.viewer, 'createTender');
    const problems = problemsOf(CreateTenderRules, input);
    const customer = input.customer;
    if (!customer.id) {
      for (const field of ['companyId', 'name'] as const) {
        if (customer[field] === undefined || customer[field] === null)
          problems.push({ parameter: `customer.${field}`, message: 'required for a new customer' });
      }
    }
    if (input.riskInformation && Buffer.byteLength(JSON.stringify(input.riskInformation)) > LIMITS.freeJsonBytes) {
      problems.push({ parameter: 'riskInformation', message: `at most ${LIMITS.freeJsonBytes / 1024} KiB of JSON` });
    }
    // Free text inside the JSON obeys the one text rule of every free-text field.
    if (input.riskInformation) problems.push(...jsonTextProblems(input.riskInformation, 'riskInformation'));
    const [lineOfBusiness, brokerCompany, existingCustomer] = await Promise.all([
      this.em.findOne(LineOfBusiness, { id: input.lineOfBusinessId }),
      this.em.findOne(BrokerCompany, { id: input.brokerCompanyId }),
      customer.id ? this.em.findOne(Customer, { id: customer.id }) : Promise.resolve(null),
    ]);
    if (!lineOfBusiness) problems.push({ parameter: 'lineOfBusinessId', message: 'no line of business has this id' });
    if (!brokerCompany) problems.push({ parameter: 'brokerCompanyId', message: 'no broker company has this id' });
    if (customer.id && !existingCustomer) problems.push({ parameter: 'customer.id', message: 'no customer has this id' });
    // An erased customer's data is gone for good: a new tender would hold it again, out of the erasure's reach.
    if (existingCustomer?.erasedAt) problems.push({ parameter: 'customer.id', message: 'this customer was erased; create a new customer' });
    if (problems.length > 0) throw badInput('The tender is invalid', problems);

    const { person: personInCharge, changed: personChanged } = await this.person(brokerCompany!, input.personInCharge ?? input.submitter);
    const now = new Date();
    const tender = this.em.create(Tender, {
      ...inputColumnsOf(input),
      status: TenderStatus.QUOTES_AVAILABLE,
      lineOfBusiness: lineOfBusiness!,
      brokerCompany: brokerCompany!,
      customer:
        existingCustomer ??
        this.em.create(Customer, {
          companyId: customer.companyId!.trim(),
          name: customer.name!.trim(),
          address: new Address(customer.address ?? {}),
        }),
      personInCharge,
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
    // The feeds are raised with the tender's rows, in one transaction.
    await flushInTransaction(this.em, async () => {
      await tenderChanged(this.em, { id: tender.id, brokerCompanyId: brokerCompany!.id });
      // The person's other tenders show the new details too.
      if (personChanged) await partiesChanged(this.em);
    });
    return tender;
  }

  /** The broker company's user with this account id, created on first sight, details kept current. */
  private async person(brokerCompany: BrokerCompany, input: PersonInput): Promise<{ person: Person; changed: boolean }> {
    const known = await this.em.findOne(Person, { brokerCompany, accountId: input.accountId });
    if (!known) return { person: this.em.create(Person, { brokerCompany, ...input }), changed: false };
    const details = {
      email: input.email,
      firstName: input.firstName,
      lastName: input.lastName,
      salutation: input.salutation,
      // Not given: the language it had stays.
      ...(input.language ? { language: input.language } : {}),
    };
    const changed = (Object.keys(details) as (keyof typeof details)[]).some((key) => known[key] !== details[key]);
    this.em.assign(known, details);
    return { person: known, changed };
  }
}
