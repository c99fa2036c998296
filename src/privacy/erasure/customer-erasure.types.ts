import { Field, ID, Int, ObjectType } from 'type-graphql';
import { TimestampScalar } from '../../platform/validation/timestamp';
import { ErasureTrigger } from '../erasure-trigger';

@ObjectType('CustomerErasure', { description: 'The record of one erasure of a customer (docs/privacy.md): no personal data.' })
export class CustomerErasureView {
  @Field(() => ID)
  customerId!: string;

  @Field(() => TimestampScalar)
  erasedAt!: Date;

  @Field(() => String, { description: 'The app_id that asked; `cli` for the command line, `retention` for the schedule.' })
  erasedBy!: string;

  @Field(() => ErasureTrigger)
  trigger!: ErasureTrigger;

  @Field(() => String)
  reason!: string;

  @Field(() => Int, { description: "The customer's tenders: kept, with their personal data erased." })
  tenders!: number;

  @Field(() => Int, { description: 'Documents deleted with their bytes by this erasure.' })
  documents!: number;

  @Field(() => Int, { description: 'Persons in charge emptied, or replaced on these tenders by an empty stand-in.' })
  persons!: number;

  @Field(() => Boolean, {
    description: 'True when the customer had been erased before: this erasure removed again what its tenders held since (counted above).',
  })
  alreadyErased!: boolean;
}
