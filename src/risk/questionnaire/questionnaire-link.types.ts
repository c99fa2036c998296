import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { TimestampScalar } from '../../platform/validation/timestamp';

@InputType('CreateQuestionnaireLinkInput')
export class CreateQuestionnaireLinkInput {
  @Field(() => ID)
  tenderId!: string;

  @Field(() => String, {
    nullable: true,
    description: "The customer's address: when given, the link is mailed there (mail on, SMTP_URL); personal data.",
  })
  email?: string | null;

  @Field(() => String, {
    nullable: true,
    description: "The page's and the mail's language when the browser names none: de (the default) or en.",
  })
  language?: string | null;

  @Field(() => Int, { nullable: true, description: 'Days the link opens the questionnaire: 1 to 30, 14 when left out.' })
  expiresInDays?: number | null;
}

@ObjectType('QuestionnaireLink', {
  simpleResolvers: true,
  description: "A link that opens a tender's risk questionnaire for its customer, without an API client (docs/people.md).",
})
export class QuestionnaireLinkView {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  tenderId!: string;

  @Field(() => String, {
    description:
      'The page: PUBLIC_URL (or the request’s origin), /questionnaire/ and the token. A credential: share it with the customer only.',
  })
  url!: string;

  @Field(() => String, { nullable: true, description: 'Where it was mailed; null when the broker passes it on itself.' })
  email!: string | null;

  @Field(() => String, { description: 'de or en.' })
  language!: string;

  @Field(() => TimestampScalar)
  expiresAt!: Date;

  @Field(() => TimestampScalar, { nullable: true })
  revokedAt!: Date | null;

  @Field(() => TimestampScalar)
  createdAt!: Date;
}
