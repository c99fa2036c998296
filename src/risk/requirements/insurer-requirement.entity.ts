import { Entity, Index, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../platform/db/ids';
import { Insurer } from '../../insurers/insurer.entity';

/**
 * Which questions of a product an insurer prices on, from a date: JSON pointers into the answers. The current
 * requirement is the latest one in effect; later ones are scheduled. A new one for the same date replaces it.
 */
@Entity({ tableName: 'insurer_requirement' })
@Index({ name: 'insurer_requirement_lookup_idx', properties: ['insurer', 'product', 'effectiveFrom'] })
export class InsurerRequirement {
  [OptionalProps]?: 'id' | 'setAt';

  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @ManyToOne({ entity: () => Insurer, index: false })
  insurer!: Insurer;

  @Property({ type: 'string', length: 200 })
  product!: string;

  /** JSON pointers into the answers (`/employees`, `/locations`). */
  @Property({ type: 'json' })
  pointers!: string[];

  @Property({ type: Date, length: 3 })
  effectiveFrom!: Date;

  @Property({ type: 'string', length: 200 })
  setBy!: string;

  @Property({ type: Date, length: 3 })
  setAt: Date = new Date();
}
