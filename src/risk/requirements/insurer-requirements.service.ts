import type { EntityManager } from '@mikro-orm/core';
import { assertMay, Role, type Viewer } from '../../access';
import { badInput, notFound } from '../../platform/errors/domain-error';
import { Insurer } from '../../insurers';
import { InsurerRequirement } from './insurer-requirement.entity';
import { latestQuestionSet, schemaOf } from '../question-sets/question-set-versions';
import { questionsOf } from '../question-sets/question-set-format';

/** An insurer's own client changes its requirements only this far ahead: brokers get time to collect the answers. */
const REQUIREMENT_NOTICE_DAYS = 14;
const DAY_MS = 24 * 3600_000;
const MAX_POINTERS = 200;

export interface SetRequirements {
  insurerId: string;
  product: string;
  questionPointers: string[];
  effectiveFrom: Date;
}

/** What an insurer requires of a product: in effect now, and scheduled. */
export interface RequirementsOfInsurer {
  current: InsurerRequirement | null;
  scheduled: InsurerRequirement[];
}

/** Every requirement on a product in effect now or later, of every insurer (a publication's diff reads them). */
export async function requirementsOfProduct(em: EntityManager, product: string, now = new Date()): Promise<InsurerRequirement[]> {
  const all = await em.find(InsurerRequirement, { product }, { orderBy: { insurer: 'asc', effectiveFrom: 'desc' } });
  // Per insurer: the scheduled ones and the latest in effect; earlier ones no longer count.
  const seenCurrent = new Set<string>();
  return all.filter((requirement) => {
    if (requirement.effectiveFrom > now) return true;
    if (seenCurrent.has(requirement.insurer.id)) return false;
    seenCurrent.add(requirement.insurer.id);
    return true;
  });
}

/** The pointers an insurer requires of a product at `at`: none when it has set none. */
export async function requiredPointers(em: EntityManager, insurerId: string, product: string, at = new Date()): Promise<string[]> {
  const requirement = await em.findOne(
    InsurerRequirement,
    { insurer: insurerId, product, effectiveFrom: { $lte: at } },
    { orderBy: { effectiveFrom: 'desc', setAt: 'desc' } },
  );
  return requirement?.pointers ?? [];
}

export class InsurerRequirementsService {
  constructor(
    private readonly em: EntityManager,
    private readonly viewer: Viewer,
  ) {}

  async set(input: SetRequirements, now = new Date()): Promise<RequirementsOfInsurer> {
    assertMay(this.viewer, 'setInsurerRequirements');
    const insurer = await this.insurer(input.insurerId);
    if (this.viewer.role === Role.INSURER && input.effectiveFrom.getTime() < now.getTime() + REQUIREMENT_NOTICE_DAYS * DAY_MS) {
      throw badInput(`An insurer changes its requirements at least ${REQUIREMENT_NOTICE_DAYS} days ahead`, [
        { parameter: 'effectiveFrom', message: `must be at least ${REQUIREMENT_NOTICE_DAYS} days from now` },
      ]);
    }
    const set = await latestQuestionSet(this.em, input.product);
    if (!set) throw badInput('No question set is published for this product', [{ parameter: 'product', message: 'no question set' }]);
    const pointers = [...new Set(input.questionPointers)];
    // A requirement names questions through object properties: a whole repeatable group, never one of its items.
    const questions = new Set(questionsOf(schemaOf(set)).map((question) => question.pointer));
    const unknown = pointers.filter((pointer) => !questions.has(pointer) || pointer.includes('/*'));
    if (pointers.length > MAX_POINTERS)
      throw badInput('Too many questions', [{ parameter: 'questionPointers', message: `at most ${MAX_POINTERS}` }]);
    if (unknown.length > 0)
      throw badInput('The requirement names questions the product does not ask', [
        { parameter: 'questionPointers', message: `not questions of ${input.product} version ${set.version}: ${unknown.join(', ')}` },
      ]);
    await this.em.transactional(async (tx) => {
      // One requirement per insurer, product and date: setting it again replaces it.
      await tx.nativeDelete(InsurerRequirement, { insurer: insurer.id, product: input.product, effectiveFrom: input.effectiveFrom });
      tx.create(InsurerRequirement, {
        insurer,
        product: input.product,
        pointers: pointers.sort(),
        effectiveFrom: input.effectiveFrom,
        setBy: this.viewer.appId,
        setAt: now,
      });
    });
    return this.of(insurer.id, input.product, now);
  }

  /** An insurer's requirements of a product; an insurer reads only its own. */
  /** The insurer named; to an insurer's client, another insurer does not exist (as a tender it may not see). */
  private async insurer(insurerId: string): Promise<Insurer> {
    const insurer =
      this.viewer.role === Role.INSURER && this.viewer.insurerId !== insurerId ? null : await this.em.findOne(Insurer, { id: insurerId });
    if (!insurer) throw notFound(`Insurer ${insurerId} not found`);
    return insurer;
  }

  async of(insurerId: string, product: string, now = new Date()): Promise<RequirementsOfInsurer> {
    assertMay(this.viewer, 'insurerRequirements');
    await this.insurer(insurerId);
    const all = await this.em.find(
      InsurerRequirement,
      { insurer: insurerId, product },
      { orderBy: { effectiveFrom: 'desc', setAt: 'desc' } },
    );
    return {
      current: all.find((requirement) => requirement.effectiveFrom <= now) ?? null,
      scheduled: all.filter((requirement) => requirement.effectiveFrom > now).reverse(),
    };
  }
}
