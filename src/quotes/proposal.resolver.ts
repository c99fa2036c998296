import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../access/request-context';
import { proposalLoader } from './proposal.loader';
import { ProposalView } from './proposal.types';
import { TenderView } from '../tenders/tender.types';

@Resolver(() => TenderView)
export class ProposalResolver {
  @FieldResolver(() => ProposalView, { description: 'The proposal overview of this tender (same as Query.proposal).' })
  async proposal(@Root() tender: TenderView, @Ctx() context: RequestContext): Promise<ProposalView> {
    return (await proposalLoader(context).load(tender.id)).proposal;
  }
}
