import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { Role } from '../auth/role';
import type { RequestContext } from '../graphql/context';
import { ProposalService } from '../proposals/proposal.service';
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
    @Ctx() { em, viewer, wakeDispatcher }: RequestContext,
  ): Promise<QuoteRequestView[]> {
    const created = await new QuoteRequestService(em, viewer).requestQuotes(input);
    wakeDispatcher();
    const ids = new Set(created.map((request) => request.id));
    const { requests } = await new ProposalService(em, viewer).load(input.tenderId);
    return requests.filter((request) => ids.has(request.id));
  }

  @Query(() => [QuoteRequestView], { description: "A tender's quote requests, newest first; insurers see their own." })
  async quoteRequests(@Arg('tenderId', () => ID) tenderId: string, @Ctx() { em, viewer }: RequestContext): Promise<QuoteRequestView[]> {
    return (await new ProposalService(em, viewer).load(tenderId)).requests;
  }

  @Query(() => ProposalView, { description: "A tender's offers side by side (the proposal overview)." })
  async proposal(@Arg('tenderId', () => ID) tenderId: string, @Ctx() { em, viewer }: RequestContext): Promise<ProposalView> {
    return (await new ProposalService(em, viewer).load(tenderId)).proposal;
  }

}
