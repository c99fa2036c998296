import { Entity, Enum, OptionalProps, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { TimestampScalar } from '../platform/validation/timestamp';
import { newId } from '../platform/db/ids';
import { LIMITS } from '../platform/validation/rules';

/** How an insurer answers quote requests: its own system's API (spec 4.4), or manually through GraphQL. */
export enum InsurerIntegration {
  API = 'API',
  MANUAL = 'MANUAL',
}

registerEnumType(InsurerIntegration, {
  name: 'InsurerIntegration',
  description: 'API: the insurer system implements spec 4.4; MANUAL: the insurer answers quote requests through GraphQL.',
});

/** A person at an insurer who is mailed, in their language. */
export interface InsurerContact {
  email: string;
  name: string;
  language: 'de' | 'en';
}

@Entity({ tableName: 'insurer' })
@ObjectType('Insurer', { description: 'An insurer that can be invited to quote on tenders.' })
export class Insurer {
  [OptionalProps]?: 'integration' | 'contacts';

  @Field(() => ID)
  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @Field(() => String)
  @Unique()
  @Property({ type: 'string', length: LIMITS.name })
  name!: string;

  /** Base URL of the insurer system implementing `POST /quotes` and `GET /quotes/{id}` (spec 4.4); null for MANUAL. */
  @Property({ type: 'string', length: LIMITS.url, nullable: true })
  quoteApiUrl?: string | null;

  @Field(() => InsurerIntegration)
  @Enum({ items: () => InsurerIntegration, type: 'string', length: 8 })
  integration: InsurerIntegration = InsurerIntegration.API;

  /** Bearer credential the gateway presents to the insurer system; never exposed through any API. */
  @Property({ type: 'string', length: LIMITS.credential, nullable: true, hidden: true })
  outboundCredential?: string;

  /**
   * Who at the insurer is mailed its invitations and orders (docs/people.md, "E-mail"); at most 10. Personal data:
   * visible to internal users and the insurer's own client only.
   */
  @Property({ type: 'json', defaultRaw: "'[]'" })
  contacts: InsurerContact[] = [];

  @Field(() => TimestampScalar)
  @Property({ type: Date, length: 3 })
  createdAt: Date = new Date();
}
