import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { Role } from '../../access';
import { TimestampScalar } from '../../platform/validation/timestamp';

@ObjectType('TenderMessage', {
  simpleResolvers: true,
  description: 'A message in the clarification thread of a tender and one insurer (docs/people.md).',
})
export class TenderMessageView {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  tenderId!: string;

  @Field(() => ID, { description: 'The insurer whose thread it is.' })
  insurerId!: string;

  @Field(() => Role, { description: 'BROKER, INSURER or INTERNAL: which side wrote it.' })
  authorRole!: Role;

  @Field(() => String, { nullable: true, description: 'The API client that posted it; not shown to insurers.' })
  author!: string | null;

  @Field(() => String, { description: "Free text of several lines; empty once the customer's personal data was erased." })
  text!: string;

  @Field(() => [ID], { description: 'Documents of the tender it points to, each one the insurer sees.' })
  documentIds!: string[];

  @Field(() => Boolean, { description: 'It asks the other side for information (an open question until answered).' })
  requestsInformation!: boolean;

  @Field(() => TimestampScalar)
  createdAt!: Date;
}

@InputType('PostTenderMessageInput')
export class PostTenderMessageInput {
  @Field(() => ID)
  tenderId!: string;

  @Field(() => ID, { description: 'The insurer whose thread it is; an insurer names itself.' })
  insurerId!: string;

  @Field(() => String, { description: 'At most 4000 characters, several lines; no control characters (docs/errors-and-limits.md).' })
  text!: string;

  @Field(() => [ID], { nullable: true, description: 'At most 10 documents of the tender that the insurer sees.' })
  documentIds?: string[] | null;

  @Field(() => Boolean, { nullable: true, description: 'Asks the other side for information; false when left out.' })
  requestsInformation?: boolean | null;
}
