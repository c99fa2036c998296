import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { TimestampScalar } from '../../platform/validation/timestamp';

export enum PolicyDocumentationStatus {
  PENDING = 'PENDING',
  CONFIRMED = 'CONFIRMED',
}
registerEnumType(PolicyDocumentationStatus, { name: 'PolicyDocumentationStatus' });

@ObjectType('PolicyPeriod', { simpleResolvers: true, description: 'The policy period: two days (YYYY-MM-DD), both included.' })
export class PolicyPeriodView {
  @Field(() => String)
  start!: string;

  @Field(() => String)
  end!: string;
}

@ObjectType('PolicyDocumentation', {
  simpleResolvers: true,
  description: 'Of a SUCCESSFUL tender: PENDING until the winning insurer confirms it.',
})
export class PolicyDocumentationView {
  @Field(() => PolicyDocumentationStatus)
  status!: PolicyDocumentationStatus;

  @Field(() => String, { nullable: true })
  policyNumber!: string | null;

  @Field(() => TimestampScalar, { nullable: true })
  confirmedAt!: Date | null;

  @Field(() => ID, { nullable: true, description: 'The POLICY document named at the confirmation; null without one.' })
  documentId!: string | null;

  @Field(() => PolicyPeriodView, {
    nullable: true,
    description: 'Recorded when the contract was finalised (docs/lifecycle.md, "Binding"); null for contracts finalised before.',
  })
  period!: PolicyPeriodView | null;
}
