import { Entity, Index, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../platform/db/ids';
import { Insurer } from '../../insurers/insurer.entity';
import { LIMITS } from '../../platform/validation/rules';

/**
 * An onboarding check in progress (`insurer-check.service.ts`): a synthetic quote request sent straight to an
 * insurer system, with no tender and no quote request behind it. The row lets the callback route, in whichever
 * gateway process receives the insurer's callback, recognise the check's id and count the callbacks for the
 * check that waits for them. Deleted when the check ends; one left by a check that died is ignored after
 * `expiresAt` and swept by the next check.
 */
@Entity({ tableName: 'insurer_check' })
@Index({ name: 'insurer_check_insurer_reference_idx', properties: ['insurer', 'insurerReference'] })
export class InsurerCheck {
  [OptionalProps]?: 'id' | 'callbacks';

  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @ManyToOne({ entity: () => Insurer, index: false })
  insurer!: Insurer;

  /** The insurer's id from the acknowledgement; null until it arrived. */
  @Property({ type: 'string', length: LIMITS.reference, nullable: true })
  insurerReference?: string | null;

  @Property({ type: Date, length: 3 })
  startedAt!: Date;

  /** After this the row means nothing: callbacks for its id are treated as unknown, and it may be swept. */
  @Property({ type: Date, length: 3 })
  expiresAt!: Date;

  /** Callbacks the gateway accepted (202) for the check's id. */
  @Property({ type: 'integer' })
  callbacks: number = 0;

  @Property({ type: Date, length: 3, nullable: true })
  firstCallbackAt?: Date | null;

  @Property({ type: Date, length: 3, nullable: true })
  lastCallbackAt?: Date | null;
}
