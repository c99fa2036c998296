import type { EntityManager } from '@mikro-orm/core';
import { assertMay, Role, type Viewer } from '../../access';
import { DomainError, badInput, forbidden, notFound, type FieldProblem } from '../../platform/errors/domain-error';
import { LIMITS, optionalMultiLineText, requiredMultiLineText } from '../../platform/validation/rules';
import { problemsOf } from '../../platform/validation/validate';
import { newId } from '../../platform/db/ids';
import {
  TenderHistoryEntry,
  TenderStatus,
  findVisibleTender,
  isRedactedFor,
  lockTenderRow,
  tenderChanged,
  type Tender,
  type TenderChangeListener,
} from '../../tenders';
import type { QuoteEventListener } from '../quote-events';
import { SubjectivityDecision, SubjectivityStage, SubjectivityStatus, SubjectivityStepKind } from '../quote-request-status';
import { SubjectivityStep, TrackedSubjectivity } from './subjectivity.entity';

/** What the subjectivity operations need: the request's EntityManager and viewer, the listeners, the clock. */
export interface SubjectivityDeps {
  em: EntityManager;
  viewer: Viewer;
  listeners: readonly QuoteEventListener[];
  now: () => Date;
}

/** A subjectivity still waiting for the broker (OPEN, or REJECTED: asked for another response) or for the insurer. */
const UNCLEARED: readonly SubjectivityStatus[] = [SubjectivityStatus.OPEN, SubjectivityStatus.RESPONDED, SubjectivityStatus.REJECTED];
const CLEARED: readonly SubjectivityStatus[] = [SubjectivityStatus.ACCEPTED, SubjectivityStatus.WAIVED];

const RESULT: Record<
  SubjectivityDecision,
  { status: SubjectivityStatus; step: SubjectivityStepKind; from: readonly SubjectivityStatus[] }
> = {
  [SubjectivityDecision.ACCEPT]: { status: SubjectivityStatus.ACCEPTED, step: SubjectivityStepKind.ACCEPTED, from: UNCLEARED },
  // A rejection answers a response: it asks for another one.
  [SubjectivityDecision.REJECT]: {
    status: SubjectivityStatus.REJECTED,
    step: SubjectivityStepKind.REJECTED,
    from: [SubjectivityStatus.RESPONDED],
  },
  [SubjectivityDecision.WAIVE]: { status: SubjectivityStatus.WAIVED, step: SubjectivityStepKind.WAIVED, from: UNCLEARED },
};

/** The decisions a subjectivity in `status` takes (what a page offers; `decideSubjectivity` checks again). */
export const decisionsAllowed = (status: SubjectivityStatus): SubjectivityDecision[] =>
  Object.values(SubjectivityDecision).filter((decision) => RESULT[decision].from.includes(status));

const ResponseText = requiredMultiLineText(LIMITS.subjectivityResponse);
const DecisionReason = optionalMultiLineText(LIMITS.reason);
const RequiredDecisionReason = requiredMultiLineText(LIMITS.reason);

/**
 * The subjectivity and its tender, as the viewer may act on it: NOT_FOUND when the viewer does not see the tender (or
 * the tender is withheld from it for privacy: closed, or won by another insurer), INVALID_TRANSITION for a CLOSED
 * tender, CONFLICT for a subjectivity of an option other than the ordered one once cover is ordered.
 */
async function actionable(
  em: EntityManager,
  viewer: Viewer,
  subjectivityId: string,
): Promise<{ subjectivity: TrackedSubjectivity; tender: Tender }> {
  const subjectivity = await em.findOne(TrackedSubjectivity, { id: subjectivityId }, { populate: ['insurer', 'quoteOption'] });
  if (!subjectivity) throw notFound(`Subjectivity ${subjectivityId} not found`);
  const tender = await findVisibleTender(em, viewer, subjectivity.tender.id).catch(() => {
    throw notFound(`Subjectivity ${subjectivityId} not found`);
  });
  if (isRedactedFor(viewer, tender.status, tender.awardedInsurer?.id)) throw notFound(`Subjectivity ${subjectivityId} not found`);
  if (tender.status === TenderStatus.CLOSED)
    throw new DomainError('INVALID_TRANSITION', 'The tender is CLOSED: its subjectivities take no responses or decisions');
  const ordered = tender.orderedOption?.id;
  if (ordered && ordered !== subjectivity.quoteOption.id)
    throw new DomainError('CONFLICT', 'Cover was ordered on another option: only its subjectivities are answered now');
  return { subjectivity, tender };
}

/** The documents named in a response: AVAILABLE documents of the tender, each named once. */
async function checkDocuments(em: EntityManager, tenderId: string, documentIds: readonly string[]): Promise<FieldProblem[]> {
  if (documentIds.length > LIMITS.documentsPerMessage)
    return [{ parameter: 'documentIds', message: `must name at most ${LIMITS.documentsPerMessage} documents` }];
  if (new Set(documentIds).size !== documentIds.length) return [{ parameter: 'documentIds', message: 'must name each document once' }];
  if (documentIds.length === 0) return [];
  const rows = (await em
    .getConnection()
    .execute(
      `select id from document where tender_id = ? and state = 'AVAILABLE' and id in (${documentIds.map(() => '?').join(', ')})`,
      [tenderId, ...documentIds],
      'all',
      em.getTransactionContext(),
    )) as { id: string }[];
  const found = new Set(rows.map((row) => row.id));
  return documentIds
    .filter((id) => !found.has(id))
    .map((id) => ({ parameter: 'documentIds', message: `${id} is not a document of this tender` }));
}

/**
 * One step, in one transaction under the tender's row lock (whoever finalises the contract writes that row first, so
 * a step and a finalisation never interleave): the status changed only if it is still what was read, the step and the
 * tender's history entry appended, the listeners told.
 */
async function takeStep(
  deps: SubjectivityDeps,
  subjectivity: TrackedSubjectivity,
  tender: Tender,
  step: {
    kind: SubjectivityStepKind;
    status: SubjectivityStatus;
    from: readonly SubjectivityStatus[];
    text: string | null;
    documentIds: string[] | null;
  },
): Promise<TrackedSubjectivity> {
  const { viewer, listeners } = deps;
  const now = deps.now();
  const stepId = newId();
  await deps.em.transactional(async (tx) => {
    await lockTenderRow(tx, tender.id);
    const changed = await tx.nativeUpdate(
      TrackedSubjectivity,
      { id: subjectivity.id, status: { $in: [...step.from] } },
      { status: step.status, updatedAt: now },
    );
    if (changed !== 1) throw new DomainError('CONFLICT', `The subjectivity is no longer ${step.from.join(' or ')}; nothing was stored`);
    tx.create(SubjectivityStep, {
      id: stepId,
      subjectivity: subjectivity.id,
      at: now,
      actor: viewer.appId,
      actorRole: viewer.role,
      kind: step.kind,
      text: step.text,
      documentIds: step.documentIds,
    });
    tx.create(TenderHistoryEntry, {
      tender: tender.id,
      at: now,
      actor: viewer.appId,
      actorRole: viewer.role,
      fromStatus: tender.status,
      toStatus: tender.status,
      reason: step.kind === SubjectivityStepKind.RESPONDED ? null : step.text,
      step: `SUBJECTIVITY_${step.kind}`,
      subjectivityId: subjectivity.id,
      insurerId: subjectivity.insurer.id,
    });
    await tx.flush();
    await tenderChanged(tx, { id: tender.id, brokerCompanyId: tender.brokerCompany.id });
    const event = {
      kind: step.kind === SubjectivityStepKind.RESPONDED ? ('subjectivityResponded' as const) : ('subjectivityDecided' as const),
      tender: { id: tender.id, status: tender.status, brokerCompanyId: tender.brokerCompany.id },
      subjectivityId: subjectivity.id,
      subjectivityStatus: step.status,
      stepId,
      insurerId: subjectivity.insurer.id,
      at: now,
    };
    for (const listener of listeners) await listener(tx, event);
  });
  return deps.em.fork().findOneOrFail(TrackedSubjectivity, { id: subjectivity.id }, { populate: ['steps'] });
}

/**
 * The tender's broker (or an internal user) responds to a subjectivity, naming documents of the tender as evidence
 * (e.g. the signed application): OPEN, REJECTED or RESPONDED → RESPONDED.
 */
export async function respondToSubjectivity(
  deps: SubjectivityDeps,
  input: { subjectivityId: string; text: string; documentIds?: readonly string[] | null },
): Promise<TrackedSubjectivity> {
  assertMay(deps.viewer, 'respondToSubjectivity');
  const text = input.text.trim();
  const problems = problemsOf(ResponseText, text, 'parameter', 'text');
  const { subjectivity, tender } = await actionable(deps.em, deps.viewer, input.subjectivityId);
  if (tender.erasedAt) problems.push({ parameter: 'text', message: "must not be given: this tender's customer data was erased" });
  problems.push(...(await checkDocuments(deps.em, tender.id, input.documentIds ?? [])));
  if (problems.length > 0) throw badInput('The response is invalid', problems);
  if (CLEARED.includes(subjectivity.status))
    throw new DomainError('CONFLICT', `The subjectivity is ${subjectivity.status} already: it takes no further response`);
  return takeStep(deps, subjectivity, tender, {
    kind: SubjectivityStepKind.RESPONDED,
    status: SubjectivityStatus.RESPONDED,
    from: UNCLEARED,
    text,
    documentIds: input.documentIds && input.documentIds.length > 0 ? [...input.documentIds] : null,
  });
}

/**
 * The quoting insurer (or an internal user) decides on a subjectivity: ACCEPT or WAIVE clears it, REJECT (of a
 * response, with a reason) asks the broker for another one. The one operation behind GraphQL, REST and any page.
 */
export async function decideSubjectivity(
  deps: SubjectivityDeps,
  input: { subjectivityId: string; decision: SubjectivityDecision; reason?: string | null },
): Promise<TrackedSubjectivity> {
  assertMay(deps.viewer, 'decideSubjectivity');
  const reason = input.reason?.trim() ?? '';
  const { subjectivity, tender } = await actionable(deps.em, deps.viewer, input.subjectivityId);
  if (deps.viewer.role === Role.INSURER && subjectivity.insurer.id !== deps.viewer.insurerId)
    throw forbidden('Only the quoting insurer decides on its subjectivities');
  const rule = input.decision === SubjectivityDecision.REJECT ? RequiredDecisionReason : DecisionReason;
  const problems = problemsOf(rule, reason, 'parameter', 'reason');
  if (tender.erasedAt && reason !== '')
    problems.push({ parameter: 'reason', message: "must be empty: this tender's customer data was erased" });
  if (problems.length > 0) throw badInput('The decision is invalid', problems);
  const result = RESULT[input.decision];
  if (!result.from.includes(subjectivity.status))
    throw new DomainError('CONFLICT', `A subjectivity that is ${subjectivity.status} cannot be given ${input.decision}`);
  return takeStep(deps, subjectivity, tender, {
    kind: result.step,
    status: result.status,
    from: result.from,
    text: reason || null,
    documentIds: null,
  });
}

/**
 * A tender's subjectivities as the viewer may see them: its broker company and internal users every option's, a
 * quoting insurer its own; nothing for a tender withheld from it (CLOSED, or won by another). NOT_FOUND for a tender
 * the viewer does not see.
 */
export async function tenderSubjectivities(em: EntityManager, viewer: Viewer, tenderId: string): Promise<TrackedSubjectivity[]> {
  assertMay(viewer, 'tenderSubjectivities');
  const tender = await findVisibleTender(em, viewer, tenderId);
  if (isRedactedFor(viewer, tender.status, tender.awardedInsurer?.id)) return [];
  const own = viewer.role === Role.INSURER ? { insurer: viewer.insurerId! } : {};
  return em.find(
    TrackedSubjectivity,
    { tender: tenderId, ...own },
    {
      populate: ['steps', 'quoteOption'],
      orderBy: { quoteRequest: { createdAt: 'asc' }, quoteOption: { position: 'asc' }, position: 'asc' },
    },
  );
}

/**
 * The bind gate: finalising the contract is refused with SUBJECTIVITIES_OPEN, listing them, while a PRE_BIND
 * subjectivity of the ordered option is neither ACCEPTED nor WAIVED. It runs in the finalisation's transaction after
 * the tender's row was written (its row lock held), so no step on a subjectivity interleaves.
 */
export const refuseFinaliseWithOpenSubjectivities: TenderChangeListener = async (em, change) => {
  if (change.kind !== 'statusChanged' || change.operation !== 'finaliseContract') return;
  const optionId = change.tender.orderedOption?.id;
  if (!optionId) return;
  const open = await em.find(
    TrackedSubjectivity,
    { quoteOption: optionId, stage: SubjectivityStage.PRE_BIND, status: { $nin: [...CLEARED] } },
    { orderBy: { position: 'asc' } },
  );
  if (open.length === 0) return;
  throw new DomainError(
    'SUBJECTIVITIES_OPEN',
    `${open.length} pre-bind subjectivit${open.length === 1 ? 'y is' : 'ies are'} neither ACCEPTED nor WAIVED`,
    [],
    open.map((subjectivity) => ({
      pointer: `/subjectivities/${subjectivity.id}`,
      message: `${subjectivity.status}: ${subjectivity.text}`,
    })),
  );
};
