/** The face of parties: the entities of broker companies, customers, persons and their addresses. */
export { Address } from './address.embeddable';
export { BrokerCompany } from './broker-company.entity';
export { Customer } from './customer.entity';
export { Person } from './person.entity';
export { AddressRules, PersonRules } from './party-rules';
