import { Entity, Index, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../platform/db/ids';
import { LIMITS } from '../../platform/validation/rules';
import { Tender } from '../../tenders/tender.entity';
import { Insurer } from '../../insurers/insurer.entity';

/**
 * One message of a clarification thread: a thread is a tender and one insurer (docs/people.md). The text is the
 * customer's personal data (it may name anyone): erased with the customer, shown in its export.
 */
@Entity({ tableName: 'tender_message' })
@Index({ name: 'tender_message_thread_idx', properties: ['tender', 'insurer', 'createdAt'] })
export class TenderMessage {
  [OptionalProps]?: 'id' | 'createdAt' | 'erasedAt' | 'requestsInformation' | 'documentIds';

  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @ManyToOne({ entity: () => Tender, index: false, deleteRule: 'cascade' })
  tender!: Tender;

  @ManyToOne({ entity: () => Insurer, index: false })
  insurer!: Insurer;

  /** The author's role (`broker`, `insurer` or `internal`): which side of the thread wrote it. */
  @Property({ type: 'string', length: 16 })
  authorRole!: string;

  /** The API client that posted it (not shown to insurers). */
  @Property({ type: 'string', length: LIMITS.reference })
  authorAppId!: string;

  @Property({ type: 'text' })
  text!: string;

  /** Documents of the tender the message points to, each one the thread's insurer sees. */
  @Property({ type: 'json' })
  documentIds: string[] = [];

  /** The author asks the other side for information: an insurer's open question until the broker answers. */
  @Property({ type: 'boolean' })
  requestsInformation: boolean = false;

  @Property({ type: Date, length: 3 })
  createdAt: Date = new Date();

  /** When the customer's personal data was erased: the text is then empty. */
  @Property({ type: Date, length: 3, nullable: true })
  erasedAt?: Date | null;
}
