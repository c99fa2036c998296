import type { EntityManager } from '@mikro-orm/core';
import { notFound } from '../../platform/errors/domain-error';
import { QuestionSet } from './question-set.entity';
import { answersValidator } from './answers-validator';

// Reading the published versions: what every part of the risk assessment asks of them.

/** The schema a question set version holds. */
export const schemaOf = (set: QuestionSet): Record<string, unknown> => JSON.parse(set.schemaJson) as Record<string, unknown>;

/**
 * The validator of a version, compiled once (answers-validator.ts keeps them). Keyed by the schema's digest too: a
 * process serving several databases (the tests) may meet the same product and version with another schema.
 */
export const validatorOf = (set: QuestionSet) => answersValidator(`${set.product}@${set.version}#${set.digest}`, schemaOf(set));

/** The product's latest version that is not retired: what a tender starts on. */
export async function latestQuestionSet(em: EntityManager, product: string): Promise<QuestionSet | null> {
  return em.findOne(QuestionSet, { product, retiredAt: null }, { orderBy: { version: 'desc' } });
}

export async function questionSetVersion(em: EntityManager, product: string, version: number): Promise<QuestionSet> {
  const set = await em.findOne(QuestionSet, { product, version });
  if (!set) throw notFound(`No question set ${product} version ${version}`);
  return set;
}
