import { Embedded, Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { newId } from '../platform/db/ids';
import { Address } from './address.embeddable';
import { LIMITS } from '../platform/validation/rules';

@Entity({ tableName: 'customer' })
@ObjectType('Customer', { simpleResolvers: true })
export class Customer {
  @Field(() => ID)
  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @Field(() => String, { description: "The customer's own company identifier." })
  @Property({ type: 'string', length: LIMITS.code })
  companyId!: string;

  @Field(() => String)
  @Property({ type: 'string', length: LIMITS.name })
  name!: string;

  @Field(() => Address)
  @Embedded({ entity: () => Address, prefix: 'address_' })
  address: Address = new Address();

  /** When what identified the customer was erased (docs/privacy.md); null while it is held. Tenders show it as `erased_at`. */
  @Property({ type: Date, length: 3, nullable: true })
  erasedAt?: Date | null;
}
