import { assertMay } from '../../access';
import { AccessLink, LinkKind } from '../../links';
import { badInput, DomainError, notFound } from '../../platform/errors/domain-error';
import { problemsOf } from '../../platform/validation/validate';
import { LIMITS } from '../../platform/validation/rules';
import { findVisibleTender, lockTenderRow, Tender } from '../../tenders';
import { ANSWERABLE } from '../assessment/risk-assessment.service';
import type { RiskContext } from '../risk-context';
import type { CreateQuestionnaireLinkInput } from './questionnaire-link.types';
import { CreateQuestionnaireLinkRules, QUESTIONNAIRE_LINK_DAYS } from './questionnaire-link.rules';

const DAY_MS = 86_400_000;

/**
 * Makes a link to the tender's questionnaire for its customer: the tender's broker or an internal user, while the
 * answers may change. With an address, the mail that carries it is recorded in the same transaction (the mail names
 * the link, never its token).
 */
export async function createQuestionnaireLink(context: RiskContext, input: CreateQuestionnaireLinkInput): Promise<AccessLink> {
  const { em, viewer } = context;
  assertMay(viewer, 'createQuestionnaireLink');
  const given = {
    ...(input.email != null ? { email: input.email.trim() } : {}),
    language: (input.language ?? 'de') as 'de' | 'en',
    expiresInDays: input.expiresInDays ?? QUESTIONNAIRE_LINK_DAYS.default,
  };
  const problems = problemsOf(CreateQuestionnaireLinkRules, given, 'parameter');
  if (problems.length > 0)
    throw badInput(
      'The questionnaire link is invalid',
      problems.map((problem) => ({ ...problem, parameter: `input.${problem.parameter}` })),
    );
  const tender = await findVisibleTender(em, viewer, input.tenderId);
  const now = context.clock.now();
  return em.transactional(async (tx) => {
    await lockTenderRow(tx, tender.id);
    const fresh = await tx.findOneOrFail(Tender, { id: tender.id }, { fields: ['id', 'status', 'erasedAt'], refresh: true });
    if (fresh.erasedAt)
      throw new DomainError('CONFLICT', "The personal data of this tender's customer was erased: it takes no more answers");
    if (!ANSWERABLE.includes(fresh.status))
      throw new DomainError('CONFLICT', `Risk answers may change while the tender is ${ANSWERABLE.join(', ')}; it is ${fresh.status}`);
    if ((await tx.count(AccessLink, { tenderId: tender.id, kind: LinkKind.QUESTIONNAIRE })) >= LIMITS.questionnaireLinksPerTender)
      throw new DomainError('CONFLICT', `A tender holds at most ${LIMITS.questionnaireLinksPerTender} questionnaire links`);
    const { link } = context.links.create(
      tx,
      {
        kind: LinkKind.QUESTIONNAIRE,
        tenderId: tender.id,
        email: given.email ?? null,
        language: given.language,
        expiresAt: new Date(now.getTime() + given.expiresInDays * DAY_MS),
        createdBy: viewer.appId,
      },
      now,
    );
    await tx.flush();
    if (link.email) {
      for (const listener of context.riskEvents) {
        await listener(tx, {
          kind: 'questionnaireLinkCreated',
          linkId: link.id,
          tenderId: tender.id,
          email: link.email,
          language: given.language,
          origin: context.publicOrigin,
          at: now,
        });
      }
    }
    return link;
  });
}

/** A questionnaire link of a tender the viewer sees (NOT_FOUND otherwise, as for the tender itself). */
async function visibleLink(context: RiskContext, id: string): Promise<AccessLink> {
  const link = await context.em.findOne(AccessLink, { id, kind: LinkKind.QUESTIONNAIRE });
  if (!link) throw notFound(`Questionnaire link ${id} not found`);
  try {
    await findVisibleTender(context.em, context.viewer, link.tenderId);
  } catch {
    throw notFound(`Questionnaire link ${id} not found`);
  }
  return link;
}

/** Ends a questionnaire link at once: its page answers 410 from now on. */
export async function revokeQuestionnaireLink(context: RiskContext, id: string): Promise<AccessLink> {
  assertMay(context.viewer, 'revokeQuestionnaireLink');
  const link = await visibleLink(context, id);
  return context.links.revoke(context.em, link, context.clock.now());
}

/** The tender's questionnaire links, newest first. */
export async function questionnaireLinks(context: RiskContext, tenderId: string): Promise<AccessLink[]> {
  assertMay(context.viewer, 'questionnaireLinks');
  await findVisibleTender(context.em, context.viewer, tenderId);
  return context.links.listFor(context.em, tenderId, LinkKind.QUESTIONNAIRE);
}
