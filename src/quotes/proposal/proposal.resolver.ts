import { Ctx, FieldResolver, ID, Resolver, Root } from 'type-graphql';
import { recordRead, type RequestContext } from '../../access';
import { JSONObjectScalar } from '../../platform/validation/json';
import { proposalLoader } from './proposal.loader';
import { CheapestOptionView, ProposalEntryView, ProposalView } from './proposal.types';
import { QuoteRequestView } from '../quote.types';
import { riskInformationLoader } from './risk-information.loader';
import { TenderView } from '../../tenders';

@Resolver(() => TenderView)
export class ProposalResolver {
  @FieldResolver(() => ProposalView, { description: 'The proposal overview of this tender (same as Query.proposal).' })
  proposal(@Root() tender: TenderView): ProposalView {
    // The tender's row is already here, its tax rate redacted as the viewer must see it.
    return { tenderId: tender.id, taxRate: tender.taxRate };
  }
}

/** The proposal's fields that show quote requests: the tender's requests are loaded for them only. */
@Resolver(() => ProposalView)
export class ProposalFieldsResolver {
  @FieldResolver(() => [ProposalEntryView], { description: 'Per insurer (by name) its latest quote request.' })
  async entries(@Root() proposal: ProposalView, @Ctx() context: RequestContext): Promise<ProposalEntryView[]> {
    return (await proposalLoader(context).load(proposal.tenderId)).proposal.entries;
  }

  @FieldResolver(() => [CheapestOptionView], { description: 'Per insurance sum and deductible pair, the cheapest option.' })
  async cheapest(@Root() proposal: ProposalView, @Ctx() context: RequestContext): Promise<CheapestOptionView[]> {
    return (await proposalLoader(context).load(proposal.tenderId)).proposal.cheapest;
  }

  @FieldResolver(() => ID, { nullable: true, description: 'The option cover was ordered on, once ordered.' })
  async orderedOptionId(@Root() proposal: ProposalView, @Ctx() context: RequestContext): Promise<string | null> {
    return (await proposalLoader(context).load(proposal.tenderId)).proposal.orderedOptionId;
  }
}

@Resolver(() => QuoteRequestView)
export class QuoteRequestFieldsResolver {
  @FieldResolver(() => JSONObjectScalar, { description: 'Spec 2.3 risk_information, as sent. Priced by its size (docs/graphql.md).' })
  riskInformation(@Root() request: QuoteRequestView, @Ctx() context: RequestContext): Promise<Record<string, unknown>> {
    // The customer's risk answers (its name among them): a read of its personal data.
    recordRead(context, request.tenderId, 'QuoteRequest.riskInformation');
    return riskInformationLoader(context).load(request.id);
  }
}
