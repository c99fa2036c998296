import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { newId } from '../platform/db/ids';
import { BrokerCompany } from './broker-company.entity';
import { LIMITS } from '../platform/validation/rules';

/** A user of the broker's side; the person in charge of a tender. */
@Entity({ tableName: 'person' })
@ObjectType('Person', { simpleResolvers: true })
export class Person {
  @Field(() => ID)
  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @Field(() => String)
  @Property({ type: 'string', length: LIMITS.code })
  accountId!: string;

  @Field(() => String)
  @Property({ type: 'string', length: LIMITS.email })
  email!: string;

  @Field(() => String)
  @Property({ type: 'string', length: LIMITS.personName })
  firstName!: string;

  @Field(() => String)
  @Property({ type: 'string', length: LIMITS.personName })
  lastName!: string;

  @Field(() => String, { description: 'Free text such as "Mr", "Ms", "Dr" or empty.' })
  @Property({ type: 'string', length: LIMITS.shortText, default: '' })
  salutation: string = '';

  /**
   * The language the gateway mails the person in (`de` or `en`); none: German. Set where the person is given
   * (createTender's submitter and person in charge); not part of the tender's shape.
   */
  @Property({ type: 'string', length: 2, nullable: true })
  language?: 'de' | 'en' | null;

  @ManyToOne({ entity: () => BrokerCompany, nullable: true })
  brokerCompany?: BrokerCompany;
}
