import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { ProposalView } from '../quotes/quote.types';
import { TenderView } from '../tenders/tender.types';
import { ProposalService } from './proposal.service';

@Resolver(() => TenderView)
export class TenderProposalResolver {
  @FieldResolver(() => ProposalView, { description: 'The proposal overview of this tender (same as Query.proposal).' })
  async proposal(@Root() tender: TenderView, @Ctx() { em, viewer }: RequestContext): Promise<ProposalView> {
    return (await new ProposalService(em, viewer).load(tender.id)).proposal;
  }
}
