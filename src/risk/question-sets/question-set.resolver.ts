import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { Allowed } from '../../access';
import type { RiskContext } from '../risk-context';
import type { QuestionSet } from './question-set.entity';
import { QuestionSetService } from './question-set.service';
import { schemaOf } from './question-set-versions';
import { PublishQuestionSetInput, QuestionSetPublicationView, QuestionSetView } from './question-set.types';

/** A version as GraphQL shows it; its schema is parsed only when a client selects it (a list of versions needs none). */
const questionSetView = (set: QuestionSet): QuestionSetView => ({
  product: set.product,
  lineOfBusinessId: set.lineOfBusiness.id,
  version: set.version,
  get schema() {
    return schemaOf(set);
  },
  digest: set.digest,
  publishedAt: set.publishedAt,
  retiredAt: set.retiredAt ?? null,
});

@Resolver()
export class QuestionSetResolver {
  @Allowed('questionSet')
  @Query(() => QuestionSetView, { description: "A product's question set: the version given, or its latest that is not retired." })
  async questionSet(
    @Arg('product', () => String) product: string,
    @Arg('version', () => Int, { nullable: true }) version: number | undefined,
    @Ctx() { em, viewer }: RiskContext,
  ): Promise<QuestionSetView> {
    return questionSetView(await new QuestionSetService(em, viewer).find(product, version));
  }

  @Allowed('questionSets')
  @Query(() => [QuestionSetView], {
    description: "Every version of a product's question set (of every product when none is named), newest first.",
  })
  async questionSets(
    @Arg('product', () => String, { nullable: true }) product: string | undefined,
    @Ctx() { em, viewer, rows }: RiskContext,
  ): Promise<QuestionSetView[]> {
    // Counted against the operation's row budget, as every list is.
    const sets = await rows.read(
      () => new QuestionSetService(em, viewer).list(product),
      (found) => found.length,
    );
    return sets.map(questionSetView);
  }

  @Allowed('publishQuestionSet')
  @Mutation(() => QuestionSetPublicationView, {
    description: "Publishes a product's next question set version (BREAKING_CHANGE unless acknowledged).",
  })
  async publishQuestionSet(
    @Arg('input', () => PublishQuestionSetInput) input: PublishQuestionSetInput,
    @Ctx() { em, viewer, riskEvents, clock }: RiskContext,
  ): Promise<QuestionSetPublicationView> {
    const publication = await new QuestionSetService(em, viewer, riskEvents).publish(input, clock.now());
    return { ...publication, questionSet: questionSetView(publication.questionSet) };
  }

  @Allowed('retireQuestionSet')
  @Mutation(() => QuestionSetView, { description: 'Retires a version: no tender starts on it any more.' })
  async retireQuestionSet(
    @Arg('product', () => String) product: string,
    @Arg('version', () => Int) version: number,
    @Ctx() { em, viewer, clock }: RiskContext,
  ): Promise<QuestionSetView> {
    return questionSetView(await new QuestionSetService(em, viewer).retire(product, version, clock.now()));
  }
}
