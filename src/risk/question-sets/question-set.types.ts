import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { JSONSchemaScalar } from '../../platform/validation/json';
import { TimestampScalar } from '../../platform/validation/timestamp';

@ObjectType('QuestionSet', { simpleResolvers: true, description: "One published version of a product's risk questionnaire." })
export class QuestionSetView {
  @Field(() => String)
  product!: string;

  @Field(() => ID)
  lineOfBusinessId!: string;

  @Field(() => Int, { description: "1 for the product's first set; each publication the one before plus one." })
  version!: number;

  @Field(() => JSONSchemaScalar, {
    description: 'The JSON Schema (2020-12) with its form hints (x-label, x-help, x-order, x-unit, x-personal-data).',
  })
  schema!: Record<string, unknown>;

  @Field(() => String, { description: "SHA-256 (hex) of the schema's JSON: the REST reads' ETag." })
  digest!: string;

  @Field(() => TimestampScalar)
  publishedAt!: Date;

  @Field(() => TimestampScalar, { nullable: true, description: 'Once retired, no tender starts on this version; tenders on it keep it.' })
  retiredAt!: Date | null;
}

@ObjectType('QuestionSetChange', { simpleResolvers: true, description: 'One difference from the version before.' })
export class QuestionSetChangeView {
  @Field(() => String, { description: "The question's answer pointer; `*` stands for every item of a repeatable group." })
  pointer!: string;

  @Field(() => String, { description: 'QUESTION_ADDED, BECAME_REQUIRED, ENUM_VALUE_REMOVED, RANGE_NARROWED, … (docs/risk-assessment.md).' })
  kind!: string;

  @Field(() => Boolean, { description: 'Whether answers or requirements valid before may no longer be.' })
  breaking!: boolean;

  @Field(() => String)
  description!: string;
}

@ObjectType('QuestionSetPublication', { simpleResolvers: true })
export class QuestionSetPublicationView {
  @Field(() => QuestionSetView)
  questionSet!: QuestionSetView;

  @Field(() => [QuestionSetChangeView], { description: 'Against the version before; empty for a first version.' })
  changes!: QuestionSetChangeView[];

  @Field(() => [ID], { description: 'Tenders whose assessment (not yet quoted from) moved to this version.' })
  affectedTenderIds!: string[];

  @Field(() => [ID], { description: 'Insurers requiring a question that a breaking change touches.' })
  affectedInsurerIds!: string[];
}

@InputType('PublishQuestionSetInput')
export class PublishQuestionSetInput {
  @Field(() => String, { description: 'The product, as tenders name it (Tender.product).' })
  product!: string;

  @Field(() => ID)
  lineOfBusinessId!: string;

  @Field(() => JSONSchemaScalar)
  schema!: Record<string, unknown>;

  @Field(() => Boolean, { nullable: true, description: 'Publish even though the diff finds breaking changes.' })
  acknowledgeBreaking?: boolean;
}
