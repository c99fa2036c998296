import { Entity, Enum, OptionalProps, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { registerEnumType } from 'type-graphql';
import { newId } from '../../platform/db/ids';
import { LIMITS } from '../../platform/validation/rules';

/** How a recipient's mails go out: each at once, or together once a day (MAIL_DIGEST_HOUR, Europe/Berlin). */
export enum MailDelivery {
  IMMEDIATE = 'IMMEDIATE',
  DAILY_DIGEST = 'DAILY_DIGEST',
}

registerEnumType(MailDelivery, { name: 'MailDelivery', description: "How a recipient's mails go out." });

/**
 * One recipient address's choice: which kinds of mail it receives and how. An address without a row receives every
 * kind at once. Kept by the address (lower case), whoever mails it: a person in charge and an insurer's contact alike.
 */
@Entity({ tableName: 'mail_preference' })
export class MailPreference {
  [OptionalProps]?: 'delivery' | 'updatedAt';

  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @Unique({ name: 'mail_preference_email_unique' })
  @Property({ type: 'string', length: LIMITS.email })
  email!: string;

  /** The kinds (MailKind values) the address receives; the ones left out it opted out of. */
  @Property({ type: 'json' })
  events!: string[];

  @Enum({ items: () => MailDelivery, type: 'string', length: 16 })
  delivery: MailDelivery = MailDelivery.IMMEDIATE;

  @Property({ type: Date, length: 3 })
  updatedAt: Date = new Date();
}
