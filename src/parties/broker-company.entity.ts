import { Embedded, Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { newId } from '../platform/db/ids';
import { Address } from './address.embeddable';

@Entity({ tableName: 'broker_company' })
@ObjectType('BrokerCompany')
export class BrokerCompany {
  @Field(() => ID)
  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @Field(() => String)
  @Property({ type: 'string', length: 64 })
  companyId!: string;

  @Field(() => String)
  @Property({ type: 'string', length: 254 })
  email!: string;

  @Field(() => String)
  @Property({ type: 'string', length: 200 })
  name!: string;

  @Field(() => Address)
  @Embedded({ entity: () => Address, prefix: 'address_' })
  address: Address = new Address();
}
