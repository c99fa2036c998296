import { Embeddable, Property } from '@mikro-orm/core';
import { Field, ObjectType } from 'type-graphql';
import { LIMITS } from '../platform/validation/rules';

/** Every part may be an empty string (spec 2.1); `country` is a two-letter code when given. */
@Embeddable()
@ObjectType('Address', { simpleResolvers: true })
export class Address {
  @Field(() => String)
  @Property({ type: 'string', length: LIMITS.name, default: '' })
  street: string = '';

  @Field(() => String)
  @Property({ type: 'string', length: LIMITS.shortText, default: '' })
  houseNumber: string = '';

  @Field(() => String)
  @Property({ type: 'string', length: LIMITS.shortText, default: '' })
  zip: string = '';

  @Field(() => String)
  @Property({ type: 'string', length: LIMITS.personName, default: '' })
  city: string = '';

  @Field(() => String)
  @Property({ type: 'string', length: 2, default: '' })
  country: string = '';

  constructor(parts: Partial<Address> = {}) {
    Object.assign(this, parts);
  }
}
