import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { newId } from '../../platform/db/ids';
import { Insurer } from '../../insurers/insurer.entity';
import { LIMITS } from '../../platform/validation/rules';

/**
 * A callback for an insurer id the gateway has not stored yet: the insurer called back before its
 * acknowledgement was recorded. Kept until the acknowledgement arrives and claims it.
 */
@Entity({ tableName: 'early_callback' })
@Unique({ name: 'early_callback_insurer_reference_unique', properties: ['insurer', 'insurerReference'] })
export class EarlyCallback {
  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @ManyToOne({ entity: () => Insurer, index: false })
  insurer!: Insurer;

  @Property({ type: 'string', length: LIMITS.reference })
  insurerReference!: string;

  @Property({ type: Date, length: 3 })
  receivedAt: Date = new Date();
}
