import type { EntityManager } from '@mikro-orm/core';
import { DomainError } from '../../platform/errors/domain-error';
import { LIMITS } from '../../platform/validation/rules';
import { type Insurer, InsurerIntegration } from '../../insurers';
import { Tender } from '../../tenders';
import { RiskAssessment, RiskAssessmentStatus, answersForInsurer, insurerNeeds, type RiskEventListener } from '../../risk';
import { QuoteRequest } from '../quote-request.entity';
import { QUOTABLE, QuoteRequestMode, QuoteRequestStatus, QuoteSource } from '../quote-request-status';

/** One insurer's part of a quote request: what it is sent, or nothing yet (it waits for answers). */
export interface InsurerPlan {
  insurer: Insurer;
  riskInformation: Record<string, unknown> | undefined;
}

/** A value's size as compact JSON: what a quote request's risk information is bounded and priced by. */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/** How a request starts once it may go out: sent by the dispatcher, or answered by hand for an insurer without an API. */
export function firstStep(insurer: Insurer, now: Date) {
  return insurer.integration === InsurerIntegration.MANUAL
    ? { status: QuoteRequestStatus.AWAITING_MANUAL, source: QuoteSource.MANUAL, nextAttemptAt: null }
    : { status: QuoteRequestStatus.QUEUED, nextAttemptAt: now };
}

/**
 * Spec 2.3 `risk_information` for one insurer from the answers: the specification's fields first (customer_name from
 * the tender's customer), then only the answers it requires: an insurer never receives an answer it did not ask for.
 */
function riskInformationFor(answers: Record<string, unknown>, required: readonly string[], customerName: string): Record<string, unknown> {
  const { turnover, type_of_business, website_url, ...rest } = answersForInsurer(answers, required);
  return {
    ...(turnover === undefined ? {} : { turnover }),
    ...(type_of_business === undefined ? {} : { type_of_business }),
    ...(website_url === undefined ? {} : { website_url }),
    customer_name: customerName,
    ...rest,
  };
}

/**
 * Each insurer's request from the tender's submitted risk assessment. STRICT refuses when an insurer's required
 * answers are missing (ANSWERS_MISSING, each insurer with its pointers); FLEXIBLE lets those insurers wait.
 */
export async function planFromAssessment(
  tx: EntityManager,
  tender: Tender,
  insurers: readonly Insurer[],
  mode: QuoteRequestMode,
  now: Date,
): Promise<InsurerPlan[]> {
  const assessment = await tx.findOne(RiskAssessment, { tender: tender.id });
  if (!assessment || assessment.status !== RiskAssessmentStatus.SUBMITTED) {
    throw new DomainError(
      'CONFLICT',
      'Without riskInformation, quotes are asked for from the risk assessment, and this tender has none submitted',
      [{ parameter: 'riskInformation', message: 'required until the risk assessment is submitted' }],
    );
  }
  const plans: InsurerPlan[] = [];
  const missingOf: { index: number; insurer: Insurer; missing: string[] }[] = [];
  const tooLarge: string[] = [];
  for (const [index, insurer] of insurers.entries()) {
    const { required, missing } = await insurerNeeds(tx, assessment, insurer.id, now);
    if (missing.length > 0) {
      missingOf.push({ index, insurer, missing });
      plans.push({ insurer, riskInformation: undefined });
      continue;
    }
    const riskInformation = riskInformationFor(assessment.answers, required, tender.customer.name);
    if (jsonBytes(riskInformation) > LIMITS.riskInformationBytes) tooLarge.push(insurer.name);
    plans.push({ insurer, riskInformation });
  }
  if (tooLarge.length > 0)
    throw new DomainError(
      'BAD_USER_INPUT',
      `The answers ${tooLarge.join(', ')} require are more than ${LIMITS.riskInformationBytes / 1024} KiB of JSON`,
    );
  if (missingOf.length > 0 && mode === QuoteRequestMode.STRICT) {
    throw new DomainError(
      'ANSWERS_MISSING',
      `${missingOf.map(({ insurer }) => insurer.name).join(', ')} require answers the risk assessment lacks; answer them, or ask in FLEXIBLE mode`,
      missingOf.map(({ index, insurer, missing }) => ({
        parameter: `insurerIds[${index}]`,
        message: `${insurer.name} (${insurer.id}) requires answers to ${missing.join(', ')}`,
      })),
    );
  }
  return plans;
}

/** The first quote request fixes the question set version the tender's answers follow. */
export async function freezeAssessment(tx: EntityManager, tenderId: string, now: Date): Promise<void> {
  await tx.nativeUpdate(RiskAssessment, { tender: tenderId, frozenAt: null }, { frozenAt: now });
}

/**
 * A submitted assessment sends the requests that waited for it (FLEXIBLE): each whose insurer's required answers are
 * now all there goes out, in the submission's transaction; the others keep waiting.
 */
export const sendRequestsAwaitingAnswers: RiskEventListener = async (tx, event) => {
  if (event.kind !== 'assessmentSubmitted') return;
  const waiting = await tx.find(
    QuoteRequest,
    { tender: event.tenderId, status: QuoteRequestStatus.AWAITING_INFORMATION },
    { populate: ['insurer'] },
  );
  if (waiting.length === 0) return;
  const tender = await tx.findOneOrFail(Tender, { id: event.tenderId }, { populate: ['customer'] });
  if (!QUOTABLE.includes(tender.status)) return;
  // The dispatcher's time, not the submission's clock: a released request is due at once.
  const now = new Date();
  for (const request of waiting) {
    const assessment = { product: event.product, questionSetVersion: event.questionSetVersion, answers: event.answers };
    const { required, missing } = await insurerNeeds(tx, assessment, request.insurer.id, event.at);
    if (missing.length > 0) continue;
    const riskInformation = riskInformationFor(event.answers, required, tender.customer.name);
    if (jsonBytes(riskInformation) > LIMITS.riskInformationBytes) {
      // It keeps waiting, and internal users read why: the answers were saved, this insurer's part cannot be sent.
      request.lastErrorDetail = `the answers this insurer requires are more than ${LIMITS.riskInformationBytes / 1024} KiB of JSON`;
      continue;
    }
    Object.assign(
      request,
      { riskInformation, riskInformationBytes: jsonBytes(riskInformation), updatedAt: now, lastErrorDetail: null },
      firstStep(request.insurer, now),
    );
  }
  await tx.flush();
};
