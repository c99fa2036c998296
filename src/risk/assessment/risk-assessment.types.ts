import { Field, ID, Int, ObjectType } from 'type-graphql';
import { JSONObjectScalar } from '../../platform/validation/json';
import { TimestampScalar } from '../../platform/validation/timestamp';
import { AnswerSource, RiskAssessmentStatus } from './risk-assessment-status';

@ObjectType('QuestionSetRef', { simpleResolvers: true })
export class QuestionSetRefView {
  @Field(() => String)
  product!: string;

  @Field(() => Int)
  version!: number;
}

@ObjectType('AnswerSourceEntry', { simpleResolvers: true, description: 'Where one top-level answer came from.' })
export class AnswerSourceView {
  @Field(() => String, { description: "The answer's JSON pointer." })
  pointer!: string;

  @Field(() => AnswerSource)
  source!: AnswerSource;

  @Field(() => String, { nullable: true, description: 'The API client that saved it; not shown to insurers.' })
  by!: string | null;

  @Field(() => TimestampScalar)
  at!: Date;
}

@ObjectType('RiskAssessment', {
  description: "A tender's risk assessment: its broker and internal users see every answer, an invited insurer only those it requires.",
})
export class RiskAssessmentView {
  @Field(() => ID)
  tenderId!: string;

  @Field(() => QuestionSetRefView, { description: 'The question set the answers follow; frozen at the first quote request.' })
  questionSet!: QuestionSetRefView;

  @Field(() => JSONObjectScalar)
  answers!: Record<string, unknown>;

  @Field(() => [AnswerSourceView])
  sources!: AnswerSourceView[];

  @Field(() => RiskAssessmentStatus)
  status!: RiskAssessmentStatus;

  @Field(() => Int, { description: 'Counts the saves; a save names the version it read (expectedVersion).' })
  version!: number;

  @Field(() => TimestampScalar, { nullable: true })
  submittedAt!: Date | null;

  @Field(() => TimestampScalar)
  updatedAt!: Date;

  /** The whole answers, for `missing` (not a field: an insurer's view holds only its own). */
  whole!: Record<string, unknown>;
}
