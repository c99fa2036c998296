import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { Allowed, recordRead, sees } from '../../access';
import type { QuoteContext } from '../quote-context';
import { SubjectivityView } from '../quote.types';
import { decideSubjectivity, respondToSubjectivity, tenderSubjectivities, type SubjectivityDeps } from './subjectivity.service';
import { DecideSubjectivityInput, RespondToSubjectivityInput, presentSubjectivity } from './subjectivity.types';

const depsOf = (context: QuoteContext): SubjectivityDeps => ({
  em: context.em,
  viewer: context.viewer,
  listeners: context.quoteEvents,
  now: () => context.clock.now(),
});

/** The subjectivities of a tender's quotes, answered one by one (docs/lifecycle.md, "Binding"). */
@Resolver()
export class SubjectivityResolver {
  @Allowed('tenderSubjectivities')
  @Query(() => [SubjectivityView], {
    description:
      "A tender's subjectivities with their status and history: its broker every option's, a quoting insurer its own (none once the tender is withheld from it).",
  })
  async tenderSubjectivities(@Arg('tenderId', () => ID) tenderId: string, @Ctx() context: QuoteContext): Promise<SubjectivityView[]> {
    const found = await tenderSubjectivities(context.em, context.viewer, tenderId);
    // The broker's responses may name the customer's people: a read of its personal data.
    if (found.length > 0) recordRead(context, tenderId, 'tenderSubjectivities');
    return found.map((subjectivity) => presentSubjectivity(subjectivity, sees.actors(context.viewer)));
  }

  @Allowed('respondToSubjectivity')
  @Mutation(() => SubjectivityView, { description: "The tender's broker responds to a subjectivity: → RESPONDED." })
  async respondToSubjectivity(
    @Arg('input', () => RespondToSubjectivityInput) input: RespondToSubjectivityInput,
    @Ctx() context: QuoteContext,
  ): Promise<SubjectivityView> {
    return presentSubjectivity(await respondToSubjectivity(depsOf(context), input), sees.actors(context.viewer));
  }

  @Allowed('decideSubjectivity')
  @Mutation(() => SubjectivityView, {
    description: 'The quoting insurer (or an internal user) decides: ACCEPT → ACCEPTED, WAIVE → WAIVED, REJECT (with a reason) → REJECTED.',
  })
  async decideSubjectivity(
    @Arg('input', () => DecideSubjectivityInput) input: DecideSubjectivityInput,
    @Ctx() context: QuoteContext,
  ): Promise<SubjectivityView> {
    return presentSubjectivity(await decideSubjectivity(depsOf(context), input), sees.actors(context.viewer));
  }
}
