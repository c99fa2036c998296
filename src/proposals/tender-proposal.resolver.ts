import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { ProposalView } from '../quotes/quote.types';
import { TenderView } from '../tenders/tender.types';

@Resolver(() => TenderView)
export class TenderProposalResolver {
  @FieldResolver(() => ProposalView, { description: 'The proposal overview of this tender (same as Query.proposal).' })
  async proposal(@Root() tender: TenderView, @Ctx() { loaders }: RequestContext): Promise<ProposalView> {
    return (await loaders.proposal.load(tender.id)).proposal;
  }
}
