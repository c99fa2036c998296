import { Field, Float, ID, ObjectType } from 'type-graphql';
import { Insurer } from '../../insurers';
import { QuoteOptionView, QuoteRequestView } from '../quote.types';

@ObjectType('CheapestOption')
export class CheapestOptionView {
  @Field(() => Float)
  insuranceSum!: number;

  @Field(() => Float)
  deductible!: number;

  @Field(() => String, { description: 'Options are compared within one currency only.' })
  currency!: string;

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

/**
 * What a proposal is resolved from: the tender's own row. Its quote requests are loaded only when a field that
 * shows them is asked for (`entries`, `cheapest`, `orderedOptionId`: proposal.resolver.ts).
 */
@ObjectType('Proposal', { description: "The tender's offers side by side." })
export class ProposalView {
  @Field(() => ID)
  tenderId!: string;

  @Field(() => Float, { nullable: true })
  taxRate!: number | null;
}

/** The whole overview, once the tender's quote requests are loaded. */
export interface ProposalOverview extends ProposalView {
  entries: ProposalEntryView[];
  cheapest: CheapestOptionView[];
  orderedOptionId: string | null;
}
