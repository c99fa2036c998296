import { Address } from './address.embeddable';
import { BrokerCompany } from './broker-company.entity';
import { Customer } from './customer.entity';
import { Person } from './person.entity';

/** What parties adds to the composition: the schema and the database take it from here. */
export const partiesModule = {
  /** Its entities (the database, src/database.ts). */
  entities: [Address, BrokerCompany, Customer, Person],
};
