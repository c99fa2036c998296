import { Field, Float, ID, InputType } from 'type-graphql';
import { QuoteDecision, SubjectivityStage } from '../quote-request-status';

@InputType('SubjectivityInput')
class SubjectivityInput {
  @Field(() => String, { description: '1 to 500 characters.' })
  text!: string;

  @Field(() => SubjectivityStage)
  stage!: SubjectivityStage;

  @Field(() => String, {
    nullable: true,
    description: 'Optional: when it must be met, an RFC 3339 timestamp or a date (the end of that day in Europe/Berlin).',
  })
  dueAt?: string | null;
}

@InputType('ManualQuoteOptionInput')
class ManualQuoteOptionInput {
  @Field(() => Float, { description: 'One of the requested limits: positive.' })
  insuranceSum!: number;

  @Field(() => Float, { description: 'One of the requested limits: non-negative, below the insurance sum.' })
  deductible!: number;

  @Field(() => Float, { description: 'Without tax, at least 0.01, in the quote currency.' })
  premium!: number;

  @Field(() => [SubjectivityInput], { nullable: true, description: 'At most 20; options that differ in them are different offers.' })
  subjectivities?: SubjectivityInput[] | null;
}

@InputType('SubmitManualQuoteInput', {
  description: 'An insurer\'s answer entered by hand, read by the rules of an API insurer\'s quote (docs/quotation.md, "Quote terms").',
})
export class SubmitManualQuoteInput {
  @Field(() => ID, { description: 'An AWAITING_MANUAL (or REFERRED) request of an insurer without an API.' })
  quoteRequestId!: string;

  @Field(() => QuoteDecision, { nullable: true, description: 'Absent: options mean QUOTED, none DECLINED.' })
  decision?: QuoteDecision | null;

  @Field(() => [ManualQuoteOptionInput], { description: 'Empty for a decline or referral.' })
  options!: ManualQuoteOptionInput[];

  @Field(() => String, {
    nullable: true,
    description: 'An RFC 3339 timestamp, or a date meaning the end of that day in QUOTE_VALIDITY_ZONE; not past, at most 366 days ahead.',
  })
  validUntil?: string | null;

  @Field(() => String, { nullable: true, description: "ISO 4217; absent: the tender's currency (EUR)." })
  currency?: string | null;

  @Field(() => String, { nullable: true, description: 'For a decline or referral: 1 to 500 characters.' })
  reason?: string | null;
}
