import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { assertMay, type Viewer } from '../../access';
import { DomainError, badInput, notFound } from '../../platform/errors/domain-error';
import { LineOfBusiness } from '../../tenders';
import type { RiskEventListener } from '../risk-events';
import { requirementsOfProduct } from '../requirements/insurer-requirements.service';
import { RiskAssessment } from '../assessment/risk-assessment.entity';
import { RiskAssessmentStatus } from '../assessment/risk-assessment-status';
import { QuestionSet } from './question-set.entity';
import { questionSetProblems } from './question-set-check';
import { diffQuestionSets, requiredBy, type QuestionSetChange } from './question-set-diff';
import { latestQuestionSet, questionSetVersion, schemaOf, validatorOf } from './question-set-versions';

export interface PublishQuestionSet {
  product: string;
  lineOfBusinessId: string;
  schema: Record<string, unknown>;
  acknowledgeBreaking?: boolean | null;
}

export interface Publication {
  questionSet: QuestionSet;
  changes: QuestionSetChange[];
  /** Tenders whose assessment follows the product's latest set (none quoted from yet): they move to this version. */
  affectedTenderIds: string[];
  /** Insurers with a requirement on a question a breaking change touches. */
  affectedInsurerIds: string[];
}

export class QuestionSetService {
  constructor(
    private readonly em: EntityManager,
    private readonly viewer: Viewer,
    private readonly listeners: readonly RiskEventListener[] = [],
  ) {}

  /**
   * Publishes the product's next version. Refused when the schema may not be published (each problem at its
   * pointer), and, unless acknowledged, when it breaks what the version before promised (BREAKING_CHANGE).
   */
  async publish(input: PublishQuestionSet, now = new Date()): Promise<Publication> {
    assertMay(this.viewer, 'publishQuestionSet');
    const product = input.product.trim();
    if (product.length === 0 || product.length > 200 || product !== input.product)
      throw badInput('The product is invalid', [
        { parameter: 'product', message: 'one line of 1 to 200 characters, no surrounding spaces' },
      ]);
    const problems = questionSetProblems(input.schema);
    if (problems.length > 0) throw new DomainError('BAD_USER_INPUT', 'The question set cannot be published', [], problems);
    const lineOfBusiness = await this.em.findOne(LineOfBusiness, { id: input.lineOfBusinessId });
    if (!lineOfBusiness)
      throw badInput('Unknown line of business', [{ parameter: 'lineOfBusinessId', message: 'no such line of business' }]);
    const schemaJson = JSON.stringify(input.schema);

    return this.em.transactional(async (tx) => {
      const previous = await tx.findOne(QuestionSet, { product }, { orderBy: { version: 'desc' }, populate: ['lineOfBusiness'] });
      if (previous && previous.lineOfBusiness.id !== lineOfBusiness.id)
        throw badInput('The product belongs to another line of business', [
          { parameter: 'lineOfBusinessId', message: `${product} is of line of business ${previous.lineOfBusiness.id}` },
        ]);
      const requirements = await requirementsOfProduct(tx, product);
      const required = new Set(requirements.flatMap((requirement) => requirement.pointers));
      const changes = previous ? diffQuestionSets(schemaOf(previous), input.schema, required) : [];
      const breaking = changes.filter((change) => change.breaking);
      if (breaking.length > 0 && !input.acknowledgeBreaking) {
        throw new DomainError(
          'BREAKING_CHANGE',
          `Version ${previous!.version + 1} of ${product} breaks ${breaking.length} promise(s) of version ${previous!.version}; publish with acknowledgeBreaking to go ahead`,
          [],
          breaking.map((change) => ({ pointer: change.pointer, message: `${change.kind}: ${change.description}` })),
        );
      }
      const questionSet = tx.create(QuestionSet, {
        product,
        lineOfBusiness,
        version: (previous?.version ?? 0) + 1,
        schemaJson,
        digest: createHash('sha256').update(schemaJson).digest('hex'),
        publishedBy: this.viewer.appId,
        publishedAt: now,
      });
      await tx.flush();
      const affectedTenderIds = await this.moveOpenAssessments(tx, questionSet, now);
      const affectedInsurerIds = [
        ...new Set(
          requirements
            .filter((requirement) => breaking.some((change) => requiredBy(change.pointer, requirement.pointers)))
            .map((requirement) => requirement.insurer.id),
        ),
      ].sort();
      const insurerIds = [...new Set(requirements.map((requirement) => requirement.insurer.id))].sort();
      for (const listener of this.listeners) {
        await listener(tx, {
          kind: 'questionSetPublished',
          product,
          version: questionSet.version,
          breaking: breaking.length > 0,
          insurerIds,
          at: now,
        });
      }
      return { questionSet, changes, affectedTenderIds, affectedInsurerIds };
    });
  }

  /**
   * The assessments no quote was requested from yet follow the product's latest set: they move to the new version,
   * and a submitted one that no longer fits it is a draft again (its broker submits it once more).
   */
  private async moveOpenAssessments(tx: EntityManager, questionSet: QuestionSet, now: Date): Promise<string[]> {
    const open = await tx.find(RiskAssessment, { product: questionSet.product, frozenAt: null }, { orderBy: { id: 'asc' } });
    const validator = validatorOf(questionSet);
    for (const assessment of open) {
      assessment.questionSetVersion = questionSet.version;
      if (assessment.status === RiskAssessmentStatus.SUBMITTED && validator.submitted(assessment.answers).length > 0) {
        assessment.status = RiskAssessmentStatus.DRAFT;
        assessment.submittedAt = null;
      }
      assessment.version += 1;
      assessment.updatedAt = now;
    }
    await tx.flush();
    return open.map((assessment) => assessment.tender.id);
  }

  /** No new tender starts on a retired version; tenders on it keep it. */
  async retire(product: string, version: number, now = new Date()): Promise<QuestionSet> {
    assertMay(this.viewer, 'retireQuestionSet');
    const set = await questionSetVersion(this.em, product, version);
    if (set.retiredAt) throw new DomainError('CONFLICT', `${product} version ${version} is already retired`);
    set.retiredAt = now;
    await this.em.flush();
    return set;
  }

  /** One version, or the product's latest that is not retired. */
  async find(product: string, version?: number | null): Promise<QuestionSet> {
    if (version !== undefined && version !== null) return questionSetVersion(this.em, product, version);
    const latest = await latestQuestionSet(this.em, product);
    if (!latest) throw notFound(`No question set is published for ${product}`);
    return latest;
  }

  /** Every version of a product, or of every product; newest first within a product. */
  list(product?: string | null): Promise<QuestionSet[]> {
    return this.em.find(QuestionSet, product ? { product } : {}, { orderBy: { product: 'asc', version: 'desc' } });
  }
}
