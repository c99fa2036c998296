import type { EntityManager, FilterQuery } from '@mikro-orm/core';
import { Role, actsAsWinner, assertMay, scopeOf, type Viewer } from '../../access';
import { DomainError, badInput } from '../../platform/errors/domain-error';
import { LIMITS, requiredMultiLineText } from '../../platform/validation/rules';
import { problemsOf } from '../../platform/validation/validate';
import { AnswerSource, RiskAssessment } from '../../risk';
import {
  RenewalType,
  Tender,
  TenderHistoryEntry,
  TenderStatus,
  findVisibleTender,
  lockTenderRow,
  statusChangeKey,
  tenderChanged,
} from '../../tenders';
import { DEFAULT_CURRENCY } from '../quote-answer';
import type { QuoteEventListener } from '../quote-events';
import { QuoteOption } from '../quote-option.entity';
import { deadlineDay } from './notice-deadline';
import { periodAt } from './renewal-cycle';
import { RenewalDecision, RenewalStatus } from './renewal.types';

const Reason = requiredMultiLineText(LIMITS.reason);

/** What the renewal operations need: the request's EntityManager and viewer, the listeners, the clock. */
export interface RenewalDeps {
  em: EntityManager;
  viewer: Viewer;
  listeners: readonly QuoteEventListener[];
  now: () => Date;
}

/** A tender's renewal row as the views need it (relations for the tender's presentation loaded). */
const SHOWN = ['customer', 'brokerCompany', 'personInCharge', 'lineOfBusiness', 'awardedInsurer', 'orderedOption'] as const;

/** The tender's row locked for this transaction, read again under the lock with what the views need (and `more`). */
async function lockedTender(tx: EntityManager, id: string, more: readonly 'riskInformation'[] = []): Promise<Tender> {
  await lockTenderRow(tx, id);
  return tx.findOneOrFail(Tender, { id }, { populate: [...SHOWN, ...more], refresh: true });
}

function reasonOf(reason: string, parameter: string): string {
  const problems = problemsOf(Reason, reason, 'parameter', parameter);
  if (problems.length > 0)
    throw badInput(
      `The ${parameter} is invalid`,
      problems.map((problem) => ({ ...problem, parameter })),
    );
  return reason.trim();
}

/** A renewal step in the tender's history (docs/renewals.md, "History"); the status stays as it is. */
function recordStep(
  tx: EntityManager,
  deps: RenewalDeps,
  tender: Tender,
  step: 'RENEWAL_TERMS_SET' | 'RENEWAL_DECIDED' | 'NON_RENEWAL_NOTIFIED' | 'RENEWED',
  reason: string,
  at: Date,
): void {
  tx.create(TenderHistoryEntry, {
    tender,
    at,
    actor: deps.viewer.appId,
    actorRole: deps.viewer.role,
    fromStatus: tender.status,
    toStatus: tender.status,
    reason,
    step,
    // Which insurer the step concerns: the incumbent, told of the notice; other insurers never see it.
    insurerId: step === 'NON_RENEWAL_NOTIFIED' ? (tender.awardedInsurer?.id ?? null) : null,
  });
}

/** The status of a renewal at `now`. */
export function renewalStatusOf(tender: Tender, now: Date): RenewalStatus {
  if (tender.nonRenewalNotifiedAt) return RenewalStatus.NOTICE_GIVEN;
  return tender.noticeDeadline && tender.noticeDeadline < now ? RenewalStatus.DEADLINE_PASSED : RenewalStatus.OPEN;
}

/** A SUCCESSFUL tender with terms, visible to the viewer as its broker (or an internal user); NOT_FOUND otherwise. */
async function renewalTender(deps: RenewalDeps, tenderId: string, needsTerms: boolean): Promise<Tender> {
  const tender = await findVisibleTender(deps.em, deps.viewer, tenderId);
  if (tender.status !== TenderStatus.SUCCESSFUL)
    throw new DomainError('CONFLICT', `Only a SUCCESSFUL tender renews; this one is ${tender.status}`);
  if (needsTerms && !tender.noticeDeadline)
    throw new DomainError('CONFLICT', 'The renewal terms of this tender are not set: setRenewalTerms first');
  return tender;
}

/**
 * setRenewalTerms: the tender's broker, its insurer (the awarded one) or an internal user states how the contract renews
 * and its notice period; the deadline of the period that stands follows from the policy period (docs/renewals.md).
 */
export async function setRenewalTerms(
  deps: RenewalDeps,
  input: { tenderId: string; type: RenewalType; noticePeriodMonths: number },
): Promise<Tender> {
  assertMay(deps.viewer, 'setRenewalTerms');
  if (!Number.isInteger(input.noticePeriodMonths) || input.noticePeriodMonths < 1 || input.noticePeriodMonths > 3)
    throw badInput('The renewal terms are invalid', [{ parameter: 'noticePeriodMonths', message: 'a whole number of months, 1 to 3' }]);
  const found = await findVisibleTender(deps.em, deps.viewer, input.tenderId);
  if (deps.viewer.role === Role.INSURER && !actsAsWinner(deps.viewer, found.awardedInsurer?.id))
    throw new DomainError('FORBIDDEN', 'Only the insurer of the contract sets its renewal terms');
  if (found.status !== TenderStatus.SUCCESSFUL || !found.policyPeriodEnd)
    throw new DomainError('CONFLICT', `Renewal terms are set on a SUCCESSFUL tender with a policy period; this one is ${found.status}`);
  const now = deps.now();
  return deps.em.transactional(async (tx) => {
    const tender = await lockedTender(tx, found.id);
    const { periodEnd, deadline } = periodAt(input.type, input.noticePeriodMonths, tender.renewalPeriodEnd ?? tender.policyPeriodEnd!, now);
    const noticed = Boolean(tender.nonRenewalNotifiedAt);
    // The same deadline keeps the reminders already raised for it; another one has its own.
    const same = tender.noticeDeadline?.getTime() === deadline.getTime() && tender.renewalType === input.type;
    const reminders = same ? (tender.renewalReminders ?? 0) : noticed ? 3 : 0;
    Object.assign(tender, {
      renewalType: input.type,
      noticePeriodMonths: input.noticePeriodMonths,
      renewalPeriodEnd: periodEnd,
      noticeDeadline: deadline,
      renewalReminders: reminders,
      // The sweep looks at its next run: it raises what is due already and plans the rest (RENEWAL_LEAD_DAYS is its).
      renewalSweepAt: noticed ? null : now,
      updatedAt: now,
    });
    recordStep(
      tx,
      deps,
      tender,
      'RENEWAL_TERMS_SET',
      `${input.type}, ${input.noticePeriodMonths} months' notice, by the end of ${deadlineDay(deadline)}`,
      now,
    );
    await tx.flush();
    await tenderChanged(tx, { id: tender.id, brokerCompanyId: tender.brokerCompany.id });
    return tender;
  });
}

/** renewals: the SUCCESSFUL tenders whose notice deadline comes before `dueBefore`, soonest first; a broker its company's. */
export async function renewals(
  deps: RenewalDeps,
  input: { dueBefore: Date; status?: RenewalStatus | null; limit?: number | null },
): Promise<Tender[]> {
  assertMay(deps.viewer, 'renewals');
  const limit = input.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > LIMITS.pageSize)
    throw badInput('The renewals query is invalid', [{ parameter: 'limit', message: `1 to ${LIMITS.pageSize}` }]);
  const now = deps.now();
  const scope = scopeOf(deps.viewer);
  const deadline: FilterQuery<Tender> =
    input.status === RenewalStatus.OPEN
      ? { noticeDeadline: { $gte: now, $lte: input.dueBefore }, nonRenewalNotifiedAt: null }
      : input.status === RenewalStatus.DEADLINE_PASSED
        ? { noticeDeadline: { $lt: now, $lte: input.dueBefore }, nonRenewalNotifiedAt: null }
        : input.status === RenewalStatus.NOTICE_GIVEN
          ? { noticeDeadline: { $lte: input.dueBefore }, nonRenewalNotifiedAt: { $ne: null } }
          : { noticeDeadline: { $lte: input.dueBefore } };
  return deps.em.find(
    Tender,
    {
      // Only a SUCCESSFUL tender has a notice deadline, and SUCCESSFUL is final: the deadline's index alone answers.
      ...(scope.kind === 'brokerCompany' ? { brokerCompany: scope.brokerCompanyId } : {}),
      ...deadline,
    },
    { populate: SHOWN, orderBy: { noticeDeadline: 'asc', id: 'asc' }, limit },
  );
}

/** recordRenewalDecision: the broker records what it will do at the renewal; never shown to an insurer. */
export async function recordRenewalDecision(
  deps: RenewalDeps,
  input: { tenderId: string; decision: RenewalDecision; reason: string },
): Promise<Tender> {
  assertMay(deps.viewer, 'recordRenewalDecision');
  const reason = reasonOf(input.reason, 'reason');
  const found = await renewalTender(deps, input.tenderId, true);
  const now = deps.now();
  return deps.em.transactional(async (tx) => {
    const tender = await lockedTender(tx, found.id);
    Object.assign(tender, { renewalDecision: input.decision, renewalDecisionReason: reason, renewalDecidedAt: now });
    recordStep(tx, deps, tender, 'RENEWAL_DECIDED', `${input.decision}: ${reason}`, now);
    await tx.flush();
    await tenderChanged(tx, { id: tender.id, brokerCompanyId: tender.brokerCompany.id });
    return tender;
  });
}

/**
 * notifyNonRenewal: records that notice of non-renewal was given, before the notice deadline (refused after it, naming
 * it), ends the reminders and the tacit renewal, and tells the incumbent insurer (POLICY_NON_RENEWAL_NOTIFIED, ids only).
 */
export async function notifyNonRenewal(deps: RenewalDeps, input: { tenderId: string; reason: string }): Promise<Tender> {
  assertMay(deps.viewer, 'notifyNonRenewal');
  const reason = reasonOf(input.reason, 'reason');
  const found = await renewalTender(deps, input.tenderId, true);
  const now = deps.now();
  return deps.em.transactional(async (tx) => {
    const tender = await lockedTender(tx, found.id);
    if (tender.nonRenewalNotifiedAt) throw new DomainError('CONFLICT', 'Notice of non-renewal was already given');
    const deadline = tender.noticeDeadline!;
    if (now > deadline)
      throw new DomainError(
        'CONFLICT',
        `The notice deadline ${deadline.toISOString()} (end of ${deadlineDay(deadline)} in Berlin) has passed`,
        [{ parameter: 'tenderId', message: `the notice deadline was ${deadline.toISOString()}` }],
      );
    Object.assign(tender, { nonRenewalNotifiedAt: now, nonRenewalReason: reason, renewalReminders: 3, renewalSweepAt: null });
    recordStep(tx, deps, tender, 'NON_RENEWAL_NOTIFIED', reason, now);
    await tx.flush();
    await tenderChanged(tx, { id: tender.id, brokerCompanyId: tender.brokerCompany.id });
    const insurerId = tender.awardedInsurer?.id;
    if (insurerId) {
      const about = { id: tender.id, status: tender.status, brokerCompanyId: tender.brokerCompany.id };
      for (const listener of deps.listeners)
        await listener(tx, { kind: 'nonRenewalNotified', tender: about, insurerId, noticeDeadline: deadline, at: now });
    }
    return tender;
  });
}

/**
 * renewTender: a new tender for the same customer and product, linked both ways, with last year's risk answers carried
 * over (CARRIED_OVER, to be confirmed or changed before quotes are requested). Once per tender.
 */
export async function renewTender(deps: RenewalDeps, tenderId: string): Promise<Tender> {
  assertMay(deps.viewer, 'renewTender');
  const found = await renewalTender(deps, tenderId, false);
  const now = deps.now();
  return deps.em.transactional(async (tx) => {
    const old = await lockedTender(tx, found.id, ['riskInformation']);
    if (old.renewedBy) throw new DomainError('CONFLICT', `This tender is already renewed by ${old.renewedBy}`);
    if (old.erasedAt) throw new DomainError('CONFLICT', "The personal data of this tender's customer was erased: it cannot be renewed");
    const renewal = tx.create(Tender, {
      product: old.product,
      taxRate: old.taxRate,
      lineOfBusiness: old.lineOfBusiness,
      customer: old.customer,
      brokerCompany: old.brokerCompany,
      personInCharge: old.personInCharge,
      riskInformation: old.riskInformation ?? null,
      status: TenderStatus.QUOTES_AVAILABLE,
      changesMetadata: { [statusChangeKey(TenderStatus.QUOTES_AVAILABLE)]: now.toISOString() },
      renewalOf: old.id,
      createdAt: now,
      updatedAt: now,
    });
    tx.create(TenderHistoryEntry, {
      tender: renewal,
      at: now,
      actor: deps.viewer.appId,
      actorRole: deps.viewer.role,
      fromStatus: null,
      toStatus: TenderStatus.QUOTES_AVAILABLE,
      reason: `Renewal of ${old.id}`,
    });
    old.renewedBy = renewal.id;
    recordStep(tx, deps, old, 'RENEWED', `Renewed by ${renewal.id}`, now);
    const answers = await tx.findOne(RiskAssessment, { tender: old.id });
    if (answers && !answers.erasedAt) {
      tx.create(RiskAssessment, {
        tender: renewal,
        product: answers.product,
        questionSetVersion: answers.questionSetVersion,
        answers: structuredClone(answers.answers),
        sources: answers.sources.map((record) => ({
          pointer: record.pointer,
          source: AnswerSource.CARRIED_OVER,
          by: deps.viewer.appId,
          at: now.toISOString(),
        })),
        version: 1,
        createdAt: now,
        updatedAt: now,
      });
    }
    await tx.flush();
    await tenderChanged(tx, { id: renewal.id, brokerCompanyId: old.brokerCompany.id });
    await tenderChanged(tx, { id: old.id, brokerCompanyId: old.brokerCompany.id });
    return renewal;
  });
}

/** The expiring contract's premium (without tax) and its currency: the ordered option's. Never for an insurer. */
export async function expiringPremiumOf(em: EntityManager, tender: Tender): Promise<{ premium: number; currency: string } | null> {
  if (!tender.orderedOption) return null;
  const option = await em.findOne(QuoteOption, { id: tender.orderedOption.id }, { populate: ['quoteRequest'] });
  return option ? { premium: option.premium, currency: option.quoteRequest.currency ?? DEFAULT_CURRENCY } : null;
}
