import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { Allowed, type RequestContext } from '../../access';
import { findVisibleTender, isRedactedFor, presentTenderEntity, type TenderContext, TenderView } from '../../tenders';
import { orderCover } from '../proposal/order-cover.service';
import type { QuoteContext } from '../quote-context';
import { proposalLoader } from '../proposal/proposal.loader';
import { QuoteRequestService } from './quote-request.service';
import { ProposalView } from '../proposal/proposal.types';
import { QuoteRequestView, RequestQuotesInput } from '../quote.types';

@Resolver()
export class QuoteResolver {
  @Allowed('requestQuotes')
  @Mutation(() => [QuoteRequestView], {
    description: 'Asks insurers for quotes on a tender. The requests are queued and delivered in the background.',
  })
  async requestQuotes(
    @Arg('input', () => RequestQuotesInput) input: RequestQuotesInput,
    @Ctx() context: QuoteContext,
  ): Promise<QuoteRequestView[]> {
    const created = await new QuoteRequestService(context.em, context.viewer, context.quoteEvents, {
      links: context.links,
      origin: context.publicOrigin,
    }).requestQuotes(input);
    context.wakeDispatcher();
    const ids = new Set(created.map((request) => request.id));
    // Not what an earlier field of this operation loaded: the new requests are in it now.
    const { requests } = await proposalLoader(context).clear(input.tenderId).load(input.tenderId);
    return requests.filter((request) => ids.has(request.id));
  }

  @Allowed('quoteRequests')
  @Query(() => [QuoteRequestView], { description: "A tender's quote requests, newest first; insurers see their own." })
  async quoteRequests(@Arg('tenderId', () => ID) tenderId: string, @Ctx() context: RequestContext): Promise<QuoteRequestView[]> {
    return (await proposalLoader(context).load(tenderId)).requests;
  }

  @Allowed('proposal')
  @Query(() => ProposalView, { description: "A tender's offers side by side (the proposal overview)." })
  async proposal(@Arg('tenderId', () => ID) tenderId: string, @Ctx() { em, viewer, rows }: RequestContext): Promise<ProposalView> {
    // The tender's row only: its quote requests are loaded when a field that shows them is asked for.
    const tender = await rows.read(
      () => findVisibleTender(em, viewer, tenderId),
      () => 1,
    );
    return { tenderId: tender.id, taxRate: isRedactedFor(viewer, tender.status, tender.awardedInsurer?.id) ? null : tender.taxRate };
  }

  @Allowed('orderCover')
  @Mutation(() => TenderView, {
    description: 'QUOTES_AVAILABLE, IN_NEGOTIATION or REOPENED → IN_COVERNOTE, on one option of a received quote.',
  })
  async orderCover(
    @Arg('tenderId', () => ID) tenderId: string,
    @Arg('quoteOptionId', () => ID) quoteOptionId: string,
    @Ctx() context: TenderContext,
  ): Promise<TenderView> {
    const { em, viewer, tenderChanges } = context;
    return presentTenderEntity(
      await orderCover(em, viewer, tenderChanges, tenderId, quoteOptionId, () => context.clock.now()),
      context,
      'orderCover',
    );
  }
}
