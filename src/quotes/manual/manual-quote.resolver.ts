import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { Allowed } from '../../access';
import { proposalLoader } from '../proposal/proposal.loader';
import type { QuoteContext } from '../quote-context';
import { QuoteRequestView } from '../quote.types';
import { submitManualQuote } from './manual-quote.service';
import { SubmitManualQuoteInput } from './manual-quote.types';

@Resolver()
export class ManualQuoteResolver {
  @Allowed('submitManualQuote')
  @Mutation(() => QuoteRequestView, {
    description:
      "Answers a quote request of an insurer without an API: the insurer's own token for its own request, or an internal user on its behalf.",
  })
  async submitManualQuote(
    @Arg('input', () => SubmitManualQuoteInput) input: SubmitManualQuoteInput,
    @Ctx() context: QuoteContext,
  ): Promise<QuoteRequestView | null> {
    const { id, tenderId } = await submitManualQuote(context.em, context.viewer, context.quoteEvents, context.quoteValidityZone, input);
    // As the viewer sees it now, with its options; should it no longer see it, the answer says the change was made
    // (RESULT_UNAVAILABLE, api/graphql/carried-out.ts), never a failure.
    const { requests } = await proposalLoader(context).clear(tenderId).load(tenderId);
    return requests.find((candidate) => candidate.id === id) ?? null;
  }
}
