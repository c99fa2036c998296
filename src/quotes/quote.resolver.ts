import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { Role } from '../auth/role';
import type { RequestContext } from '../graphql/context';
import { QuoteRequestService } from './quote-request.service';
import { ProposalView, QuoteRequestView, RequestQuotesInput } from './quote.types';

@Resolver()
export class QuoteResolver {
  @Authorized(Role.BROKER, Role.INTERNAL)
  @Mutation(() => [QuoteRequestView], {
    description: 'Asks insurers for quotes on a tender. The requests are queued and delivered in the background.',
  })
  async requestQuotes(
    @Arg('input', () => RequestQuotesInput) input: RequestQuotesInput,
    @Ctx() { em, viewer, wakeDispatcher, loaders }: RequestContext,
  ): Promise<QuoteRequestView[]> {
    const created = await new QuoteRequestService(em, viewer).requestQuotes(input);
    wakeDispatcher();
    const ids = new Set(created.map((request) => request.id));
    // Not what an earlier field of this operation loaded: the new requests are in it now.
    const { requests } = await loaders.proposal.clear(input.tenderId).load(input.tenderId);
    return requests.filter((request) => ids.has(request.id));
  }

  @Query(() => [QuoteRequestView], { description: "A tender's quote requests, newest first; insurers see their own." })
  async quoteRequests(@Arg('tenderId', () => ID) tenderId: string, @Ctx() { loaders }: RequestContext): Promise<QuoteRequestView[]> {
    return (await loaders.proposal.load(tenderId)).requests;
  }

  @Query(() => ProposalView, { description: "A tender's offers side by side (the proposal overview)." })
  async proposal(@Arg('tenderId', () => ID) tenderId: string, @Ctx() { loaders }: RequestContext): Promise<ProposalView> {
    return (await loaders.proposal.load(tenderId)).proposal;
  }
}
