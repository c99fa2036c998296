import { Entity, Enum, Index, OptionalProps, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { newId } from '../platform/db/ids';
import { LIMITS } from '../platform/validation/rules';

export enum MailStatus {
  PENDING = 'PENDING',
  SENT = 'SENT',
  FAILED = 'FAILED',
  /** Waiting for its recipient's daily digest (DAILY_DIGEST): never sent alone. */
  HELD = 'HELD',
  /** Went out within a digest (the digest is a mail of its own). */
  DIGESTED = 'DIGESTED',
  /** Not sent: the customer of its tender was erased before it went out. */
  CANCELLED = 'CANCELLED',
}

export type MailLanguage = 'de' | 'en';

/**
 * One mail to one recipient: the outbox row the mail sender sends after the event's transaction committed, and its
 * log. `messageId` is derived from the event and the recipient, so an event reported twice records one mail, and the
 * same `Message-ID` goes out at every attempt (a receiving system that got it twice shows it once).
 */
@Entity({ tableName: 'mail_message' })
@Index({ name: 'mail_message_due_idx', properties: ['status', 'nextAttemptAt'] })
export class MailMessage {
  [OptionalProps]?: 'status' | 'attempts' | 'createdAt' | 'tenderId';

  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @Unique({ name: 'mail_message_message_id_unique' })
  @Property({ type: 'string', length: 128 })
  messageId!: string;

  @Property({ type: 'string', length: LIMITS.email })
  recipientAddress!: string;

  @Property({ type: 'string', length: LIMITS.personName * 2 + 1 })
  recipientName!: string;

  @Property({ type: 'string', length: 2 })
  language!: MailLanguage;

  /** The tender the mail is about (none for a digest): what an erasure of the tender's customer finds it by. */
  @Index({ name: 'mail_message_tender_idx' })
  @Property({ type: 'string', length: 36, nullable: true })
  tenderId?: string | null;

  /** Which template renders the mail (templates/). */
  @Property({ type: 'string', length: 64 })
  template!: string;

  /** What the template is given: ids and what the recipient may see, never risk answers or documents. */
  @Property({ type: 'json' })
  data!: Record<string, string>;

  @Enum({ items: () => MailStatus, type: 'string', length: 16 })
  status: MailStatus = MailStatus.PENDING;

  @Property({ type: 'integer' })
  attempts: number = 0;

  @Property({ type: Date, length: 3, nullable: true })
  nextAttemptAt?: Date | null;

  @Property({ type: 'string', length: 36, nullable: true })
  leaseOwner?: string | null;

  @Property({ type: Date, length: 3, nullable: true })
  leaseUntil?: Date | null;

  /** Why the last attempt failed, in our words and the server's reply code. */
  @Property({ type: 'string', length: 1000, nullable: true })
  lastError?: string | null;

  @Property({ type: Date, length: 3 })
  createdAt: Date = new Date();

  @Property({ type: Date, length: 3, nullable: true })
  sentAt?: Date | null;
}
