import { Entity, Enum, Index, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../platform/db/ids';
import { LIMITS } from '../platform/validation/rules';
import { ErasureTrigger } from './erasure-trigger';

/**
 * The record of one erasure of a customer (GDPR art. 17): who, when, why, and how much. It holds no personal data:
 * the customer is named by its id, the actor by its app_id, and the reason is checked not to name the customer.
 * Erasing a customer again (it removes what its tenders held since) writes a record of its own.
 */
@Entity({ tableName: 'customer_erasure' })
@Index({ name: 'customer_erasure_customer_idx', properties: ['customerId', 'erasedAt'] })
export class CustomerErasure {
  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @Property({ type: 'string', length: 36 })
  customerId!: string;

  @Property({ type: Date, length: 3 })
  erasedAt!: Date;

  /** The app_id of the API client that asked (REQUEST), `cli` for the command line, `retention` for the sweep. */
  @Property({ type: 'string', length: 64 })
  erasedBy!: string;

  @Enum({ items: () => ErasureTrigger, type: 'string', length: 16 })
  trigger!: ErasureTrigger;

  @Property({ type: 'string', length: LIMITS.reason })
  reason!: string;

  /** The customer's tenders, documents deleted, and persons in charge erased or replaced, by this erasure. */
  @Property({ type: 'integer' })
  tenders!: number;

  @Property({ type: 'integer' })
  documents!: number;

  @Property({ type: 'integer' })
  persons!: number;
}
