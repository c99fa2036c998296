import { isDeepStrictEqual } from 'node:util';
import type { EntityManager } from '@mikro-orm/core';
import { assertMay, type Viewer } from '../../access';
import { DomainError } from '../../platform/errors/domain-error';
import { Tender, TenderStatus, findVisibleTender, lockTenderRow } from '../../tenders';
import type { RiskEventListener } from '../risk-events';
import { latestQuestionSet, questionSetVersion, validatorOf } from '../question-sets/question-set-versions';
import { answersShapeProblems } from '../question-sets/answers-validator';
import { escapePointer } from '../question-sets/question-set-format';
import { RiskAssessment } from './risk-assessment.entity';
import { AnswerSource, RiskAssessmentStatus, type AnswerSourceRecord } from './risk-assessment-status';

/** While quotes may be asked for, the answers may change; from the order to cover on they are what was quoted on. */
export const ANSWERABLE: readonly TenderStatus[] = [TenderStatus.QUOTES_AVAILABLE, TenderStatus.IN_NEGOTIATION, TenderStatus.REOPENED];

export interface SaveRiskAnswers {
  tenderId: string;
  answers: Record<string, unknown>;
  /** The version the caller read: 0 for a tender without answers yet. */
  expectedVersion: number;
  submit?: boolean | null;
  /** Who gave the answers: the broker (the default), or the customer whose answers the broker passes on. */
  source?: AnswerSource | null;
  /**
   * Carried-over answers (a renewal's, CARRIED_OVER) the saver confirms as they stand, by pointer (`/revenue`), or
   * `all` of them (the customer submitting its questionnaire page): each takes the saver's source, as a changed one does.
   */
  confirm?: readonly string[] | 'all' | null;
}

/** The tender's assessment, or null. */
function assessmentOf(em: EntityManager, tenderId: string): Promise<RiskAssessment | null> {
  return em.findOne(RiskAssessment, { tender: tenderId });
}

/** Where each top-level answer came from: kept for answers that did not change, the saver's for those that did. */
function sourcesAfter(
  before: RiskAssessment | null,
  answers: Record<string, unknown>,
  source: AnswerSource,
  by: string,
  at: Date,
  confirm: readonly string[] | 'all' = [],
): AnswerSourceRecord[] {
  const confirmed = (record: AnswerSourceRecord) =>
    record.source === AnswerSource.CARRIED_OVER && (confirm === 'all' || confirm.includes(record.pointer));
  const kept = new Map((before?.sources ?? []).filter((record) => !confirmed(record)).map((record) => [record.pointer, record]));
  return Object.keys(answers)
    .sort()
    .map((key) => {
      const pointer = `/${escapePointer(key)}`;
      const unchanged = before && Object.hasOwn(before.answers, key) && isDeepStrictEqual(before.answers[key], answers[key]);
      return unchanged && kept.has(pointer) ? kept.get(pointer)! : { pointer, source, by, at: at.toISOString() };
    });
}

export class RiskAssessmentService {
  constructor(
    private readonly em: EntityManager,
    private readonly viewer: Viewer,
    private readonly listeners: readonly RiskEventListener[] = [],
  ) {}

  /**
   * Saves the tender's answers whole: a draft (the answers given are checked) or, with `submit`, checked against the
   * whole question set. The caller names the version it read; a save over a newer one is a CONFLICT and changes
   * nothing, so of two brokers saving at once one wins and the other reloads.
   */
  async save(input: SaveRiskAnswers, now = new Date()): Promise<RiskAssessment> {
    assertMay(this.viewer, 'saveRiskAnswers');
    const tender = await findVisibleTender(this.em, this.viewer, input.tenderId);
    const shape = answersShapeProblems(input.answers);
    if (shape.length > 0) throw new DomainError('BAD_USER_INPUT', 'The answers are invalid', [], shape);
    if (!Number.isSafeInteger(input.expectedVersion) || input.expectedVersion < 0)
      throw new DomainError('BAD_USER_INPUT', 'The expected version is invalid', [
        { parameter: 'expectedVersion', message: 'a whole number from 0' },
      ]);
    if (!ANSWERABLE.includes(tender.status))
      throw new DomainError('CONFLICT', `Risk answers may change while the tender is ${ANSWERABLE.join(', ')}; it is ${tender.status}`);

    const saved = await this.em.transactional(async (tx) => {
      // Under the tender's lock, as an erasure and a quote request take it: none sees a half-made save.
      await lockTenderRow(tx, tender.id);
      const fresh = await tx.findOneOrFail(Tender, { id: tender.id }, { fields: ['id', 'erasedAt', 'product'] });
      if (fresh.erasedAt)
        throw new DomainError('CONFLICT', "The personal data of this tender's customer was erased: it takes no more answers");
      const before = await assessmentOf(tx, tender.id);
      const current = before?.version ?? 0;
      if (current !== input.expectedVersion)
        throw new DomainError(
          'CONFLICT',
          `The risk assessment is at version ${current}, not ${input.expectedVersion}: load it again and retry`,
          [{ parameter: 'expectedVersion', message: `the current version is ${current}` }],
        );
      const set = before?.frozenAt
        ? await questionSetVersion(tx, before.product, before.questionSetVersion)
        : await latestQuestionSet(tx, tender.product);
      if (!set) throw new DomainError('CONFLICT', `No question set is published for the product ${tender.product}`);
      const validator = validatorOf(set);
      const problems = input.submit ? validator.submitted(input.answers) : validator.draft(input.answers);
      if (problems.length > 0)
        throw new DomainError('BAD_USER_INPUT', `The answers do not fit ${set.product} version ${set.version}`, [], problems);
      const status = input.submit ? RiskAssessmentStatus.SUBMITTED : RiskAssessmentStatus.DRAFT;
      const sources = sourcesAfter(before, input.answers, input.source ?? AnswerSource.BROKER, this.viewer.appId, now, input.confirm ?? []);
      const assessment =
        before ??
        tx.create(RiskAssessment, {
          tender: tender.id,
          product: set.product,
          questionSetVersion: set.version,
          answers: {},
          sources: [],
          version: 0,
          createdAt: now,
        });
      Object.assign(assessment, {
        questionSetVersion: set.version,
        answers: input.answers,
        sources,
        status,
        submittedAt: input.submit ? now : null,
        version: current + 1,
        updatedAt: now,
      });
      await tx.flush();
      if (input.submit) {
        for (const listener of this.listeners) {
          await listener(tx, {
            kind: 'assessmentSubmitted',
            tenderId: tender.id,
            tenderStatus: tender.status,
            brokerCompanyId: tender.brokerCompany.id,
            product: set.product,
            questionSetVersion: set.version,
            answers: input.answers,
            at: now,
          });
        }
      }
      return assessment;
    });
    return saved;
  }
}
