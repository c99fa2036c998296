import { Entity, Enum, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../platform/db/ids';
import { LIMITS } from '../platform/validation/rules';
import { ErasureTrigger } from './erasure-trigger';

/**
 * The record of one customer's erasure (GDPR art. 17): who, when, why, and how much. It holds no personal data:
 * the customer is named by its id, the actor by its app_id, and the reason is checked not to name the customer.
 * One per customer: erasing again finds it and changes nothing.
 */
@Entity({ tableName: 'customer_erasure' })
export class CustomerErasure {
  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @Property({ type: 'string', length: 36, unique: 'customer_erasure_customer_unique' })
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

  /** The customer's tenders, documents deleted, and persons in charge erased or replaced, at the erasure. */
  @Property({ type: 'integer' })
  tenders!: number;

  @Property({ type: 'integer' })
  documents!: number;

  @Property({ type: 'integer' })
  persons!: number;
}
