import { Embedded, Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { newId } from '../platform/db/ids';
import { Address } from './address.embeddable';

@Entity({ tableName: 'customer' })
@ObjectType('Customer')
export class Customer {
  @Field(() => ID)
  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @Field(() => String, { description: 'The customer\'s own company identifier.' })
  @Property({ type: 'string', length: 64 })
  companyId!: string;

  @Field(() => String)
  @Property({ type: 'string', length: 200 })
  name!: string;

  @Field(() => Address)
  @Embedded({ entity: () => Address, prefix: 'address_' })
  address: Address = new Address();
}
