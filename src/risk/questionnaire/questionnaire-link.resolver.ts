import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { Allowed, recordRead } from '../../access';
import type { AccessLink } from '../../links';
import type { RiskContext } from '../risk-context';
import { createQuestionnaireLink, questionnaireLinks, revokeQuestionnaireLink } from './questionnaire-links';
import { CreateQuestionnaireLinkInput, QuestionnaireLinkView } from './questionnaire-link.types';

const presentLink = (link: AccessLink, context: RiskContext): QuestionnaireLinkView => ({
  id: link.id,
  tenderId: link.tenderId,
  url: context.links.urlOf(link, context.publicOrigin),
  email: link.email ?? null,
  language: link.language ?? 'de',
  expiresAt: link.expiresAt,
  revokedAt: link.revokedAt ?? null,
  createdAt: link.createdAt,
});

@Resolver(() => QuestionnaireLinkView)
export class QuestionnaireLinkResolver {
  @Allowed('createQuestionnaireLink')
  @Mutation(() => QuestionnaireLinkView, {
    description:
      "A link to the tender's risk questionnaire for its customer (the tender's broker, internal users), at most 30 days; mailed when `email` is given.",
  })
  async createQuestionnaireLink(
    @Arg('input', () => CreateQuestionnaireLinkInput) input: CreateQuestionnaireLinkInput,
    @Ctx() context: RiskContext,
  ): Promise<QuestionnaireLinkView> {
    return presentLink(await createQuestionnaireLink(context, input), context);
  }

  @Allowed('revokeQuestionnaireLink')
  @Mutation(() => QuestionnaireLinkView, { description: 'Ends a questionnaire link at once: its page answers 410 (Gone).' })
  async revokeQuestionnaireLink(@Arg('id', () => ID) id: string, @Ctx() context: RiskContext): Promise<QuestionnaireLinkView> {
    return presentLink(await revokeQuestionnaireLink(context, id), context);
  }

  @Allowed('questionnaireLinks')
  @Query(() => [QuestionnaireLinkView], {
    description: "The tender's questionnaire links, newest first (the tender's broker, internal users).",
  })
  async questionnaireLinks(@Arg('tenderId', () => ID) tenderId: string, @Ctx() context: RiskContext): Promise<QuestionnaireLinkView[]> {
    const links = await questionnaireLinks(context, tenderId);
    // The addresses are the customer's personal data: a read of it.
    if (links.some((link) => link.email)) recordRead(context, tenderId, 'questionnaireLinks');
    return links.map((link) => presentLink(link, context));
  }
}
