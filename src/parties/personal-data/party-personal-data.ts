import type { EntityManager } from '@mikro-orm/core';
import { Address } from '../address.embeddable';
import { Customer } from '../customer.entity';
import { Person } from '../person.entity';
import { ERASED } from './erased-values';
import type { PersonalData, PersonalField, PersonsInCharge } from './personal-data';

const ADDRESS = ['street', 'houseNumber', 'zip', 'city', 'country'] as const;
const PERSON = ['accountId', 'email', 'firstName', 'lastName', 'salutation'] as const;

const FIELDS: readonly PersonalField[] = [
  { entity: 'Customer', property: 'name' },
  { entity: 'Customer', property: 'companyId' },
  ...ADDRESS.map((part) => ({ entity: 'Customer', property: `address.${part}` })),
  ...PERSON.map((property) => ({ entity: 'Person', property })),
];

const ERASED_PERSON = Object.fromEntries(PERSON.map((property) => [property, ERASED])) as Record<(typeof PERSON)[number], string>;

/**
 * The customer (name, company id, address) and the persons in charge of its tenders. The persons are shown in the
 * export within each tender (tenders' part, from the tender's shape); the customer is the export's `customer`.
 */
export function partyPersonalData(personsInCharge: PersonsInCharge): PersonalData {
  return {
    fields: FIELDS,
    async erase(tx, scope) {
      await tx.nativeUpdate(
        Customer,
        { id: scope.customerId },
        { erasedAt: scope.erasedAt, name: ERASED, companyId: ERASED, address: new Address() },
      );
      const personIds = [...new Set(scope.tenders.map((tender) => tender.personInChargeId))];
      await erasePersons(tx, personsInCharge, scope.customerId, personIds);
      return { persons: personIds.length };
    },
    async export(em, scope) {
      const customer = await em.findOneOrFail(Customer, { id: scope.customerId });
      return {
        top: { customer: { _id: customer.id, company_id: customer.companyId, name: customer.name, address: address(customer.address) } },
      };
    },
  };
}

/**
 * The persons in charge are the broker's employees, and may be in charge of other customers' tenders too: a person
 * in charge of this customer's tenders alone is emptied in place; one also in charge of others' is replaced on this
 * customer's tenders by an empty stand-in of the same broker company, and stays as it is on the others'.
 */
async function erasePersons(tx: EntityManager, personsInCharge: PersonsInCharge, customerId: string, personIds: readonly string[]) {
  for (const personId of personIds) {
    if (!(await personsInCharge.inChargeElsewhere(tx, customerId, personId))) {
      await tx.nativeUpdate(Person, { id: personId }, ERASED_PERSON);
      continue;
    }
    const person = await tx.findOneOrFail(Person, { id: personId });
    const standIn = tx.create(Person, { ...ERASED_PERSON, brokerCompany: person.brokerCompany });
    await tx.flush();
    await personsInCharge.replace(tx, customerId, personId, standIn.id);
  }
}

const address = (of: Address) => ({ street: of.street, house_number: of.houseNumber, zip: of.zip, city: of.city, country: of.country });
