import { Field, Float, ID, ObjectType } from 'type-graphql';
import { Insurer } from '../insurers/insurer.entity';
import { QuoteOptionView, QuoteRequestView } from './quote.types';

@ObjectType('CheapestOption')
export class CheapestOptionView {
  @Field(() => Float)
  insuranceSum!: number;

  @Field(() => Float)
  deductible!: number;

  @Field(() => Insurer)
  insurer!: Insurer;

  @Field(() => QuoteOptionView)
  option!: QuoteOptionView;
}

@ObjectType('ProposalEntry', { description: "One insurer's latest quote request and its options." })
export class ProposalEntryView {
  @Field(() => Insurer)
  insurer!: Insurer;

  @Field(() => QuoteRequestView)
  quoteRequest!: QuoteRequestView;
}

@ObjectType('Proposal', { description: "The tender's offers side by side." })
export class ProposalView {
  @Field(() => ID)
  tenderId!: string;

  @Field(() => Float, { nullable: true })
  taxRate!: number | null;

  @Field(() => [ProposalEntryView], { description: 'Per insurer (by name) its latest quote request.' })
  entries!: ProposalEntryView[];

  @Field(() => [CheapestOptionView], { description: 'Per insurance sum and deductible pair, the cheapest option.' })
  cheapest!: CheapestOptionView[];

  @Field(() => ID, { nullable: true, description: 'The option cover was ordered on, once ordered.' })
  orderedOptionId!: string | null;
}
