import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { TimestampScalar } from '../platform/validation/timestamp';
import { newId } from '../platform/db/ids';
import { LIMITS } from '../platform/validation/rules';

@Entity({ tableName: 'insurer' })
@ObjectType('Insurer', { description: 'An insurer that can be invited to quote on tenders.' })
export class Insurer {
  @Field(() => ID)
  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @Field(() => String)
  @Unique()
  @Property({ type: 'string', length: LIMITS.name })
  name!: string;

  /** Base URL of the insurer system implementing `POST /quotes` and `GET /quotes/{id}` (spec 4.4). */
  @Property({ type: 'string', length: LIMITS.url })
  quoteApiUrl!: string;

  /** Bearer credential the gateway presents to the insurer system; never exposed through any API. */
  @Property({ type: 'string', length: LIMITS.credential, nullable: true, hidden: true })
  outboundCredential?: string;

  @Field(() => TimestampScalar)
  @Property({ type: Date, length: 3 })
  createdAt: Date = new Date();
}
