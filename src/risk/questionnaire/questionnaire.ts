import type { EntityManager } from '@mikro-orm/core';
import { Role, type Viewer } from '../../access';
import type { AccessLink } from '../../links';
import { Tender } from '../../tenders';
import { latestQuestionSet, questionSetVersion, schemaOf } from '../question-sets/question-set-versions';
import { RiskAssessment } from '../assessment/risk-assessment.entity';
import { ANSWERABLE, RiskAssessmentService } from '../assessment/risk-assessment.service';
import { AnswerSource, RiskAssessmentStatus } from '../assessment/risk-assessment-status';
import type { RiskEventListener } from '../risk-events';

/**
 * What the customer's questionnaire page shows of a tender: its product, the broker company's name, the customer's own
 * name, the question set and the answers so far. Nothing else of the tender.
 */
export interface Questionnaire {
  product: string;
  brokerName: string;
  customerName: string;
  /** The question set the answers are given against; null when none is published for the product. */
  schema: Record<string, unknown> | null;
  answers: Record<string, unknown>;
  /** The assessment's version (0 before the first save): what a save names as read. */
  version: number;
  submitted: boolean;
  /** Whether answers may change now (the tender's status, and no erasure). */
  answerable: boolean;
}

/** The questionnaire a link opens, as of now. */
export async function openQuestionnaire(em: EntityManager, link: AccessLink): Promise<Questionnaire> {
  const tender = await em.findOneOrFail(Tender, { id: link.tenderId }, { populate: ['customer', 'brokerCompany'] });
  const assessment = await em.findOne(RiskAssessment, { tender: tender.id });
  const set = assessment?.frozenAt
    ? await questionSetVersion(em, assessment.product, assessment.questionSetVersion)
    : await latestQuestionSet(em, tender.product);
  return {
    product: tender.product,
    brokerName: tender.brokerCompany.name,
    customerName: tender.customer.name,
    schema: set ? schemaOf(set) : null,
    answers: assessment?.answers ?? {},
    version: assessment?.version ?? 0,
    submitted: assessment?.status === RiskAssessmentStatus.SUBMITTED,
    answerable: !tender.erasedAt && ANSWERABLE.includes(tender.status),
  };
}

/**
 * Who saves through a questionnaire link: the tender's broker company, as the link's maker passes on the customer's
 * answers; its `appId` names the link, so each answer's source shows which link gave it. It exists only for the
 * service's checks, inside the gateway: no request carries it, and it opens no API.
 */
const linkViewer = (link: AccessLink, brokerCompanyId: string): Viewer => ({
  appId: `questionnaire:${link.id}`,
  role: Role.BROKER,
  brokerCompanyId,
  jti: link.id,
  expiresAt: link.expiresAt,
  tokenGeneration: 0,
});

/**
 * Saves the customer's answers through the link, by the same rules as `saveRiskAnswers` (the same service): a draft, or
 * with `submit` the whole set, source CUSTOMER, over the version the page read (CONFLICT when it changed since).
 * A submission reports to `listeners` (the webhook RISK_ASSESSMENT_SUBMITTED, the broker's mail, quotes waiting).
 */
export async function saveQuestionnaire(
  em: EntityManager,
  link: AccessLink,
  input: { answers: Record<string, unknown>; expectedVersion: number; submit: boolean },
  listeners: readonly RiskEventListener[],
  now: Date,
): Promise<RiskAssessment> {
  const tender = await em.findOneOrFail(Tender, { id: link.tenderId }, { fields: ['id', 'brokerCompany'] });
  const service = new RiskAssessmentService(em, linkViewer(link, tender.brokerCompany.id), listeners);
  return service.save(
    {
      tenderId: tender.id,
      answers: input.answers,
      expectedVersion: input.expectedVersion,
      submit: input.submit,
      source: AnswerSource.CUSTOMER,
      // The customer submitting its page has seen every answer on it: last year's carried over ones included.
      confirm: input.submit ? 'all' : [],
    },
    now,
  );
}
