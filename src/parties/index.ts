/** The face of parties: the entities of broker companies, customers, persons and their addresses. */
export { Address } from './address.embeddable';
export { BrokerCompany } from './broker-company.entity';
export { Customer } from './customer.entity';
export { Person } from './person.entity';
export { AddressRules, PersonRules } from './party-rules';
// personal-data/: the port each feature holding a customer's personal data implements (privacy runs them), and parties' own part
export { ERASED, erasedJson } from './personal-data/erased-values';
export { groupedBy, type ErasedPart, type PersonalData, type PersonalField, type PersonsInCharge } from './personal-data/personal-data';
export { partyPersonalData } from './personal-data/party-personal-data';
// module.ts: what the composition (the schema, the database) takes of the feature
export { partiesModule } from './module';
