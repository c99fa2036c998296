import type { EntityManager } from '@mikro-orm/core';
import { missingAnswers } from '../question-sets/answers-projection';
import { questionsOf } from '../question-sets/question-set-format';
import { questionSetVersion, schemaOf, validatorOf } from '../question-sets/question-set-versions';
import { requiredPointers } from '../requirements/insurer-requirements.service';

/** What `insurerNeeds` tells of one insurer and one assessment. */
export interface InsurerNeeds {
  /** The pointers the insurer requires of the product now. */
  required: string[];
  /** Those the answers lack, as far as they apply to this customer. */
  missing: string[];
}

/**
 * Which of the questions an insurer requires the answers lack. A conditional question (`then`, `dependentSchemas`)
 * that its condition does not ask for is not missing: an insurer may require the description of prior losses and
 * still quote a customer who had none.
 */
export async function insurerNeeds(
  em: EntityManager,
  assessment: { product: string; questionSetVersion: number; answers: Record<string, unknown> },
  insurerId: string,
  at = new Date(),
): Promise<InsurerNeeds> {
  const required = await requiredPointers(em, insurerId, assessment.product, at);
  const absent = missingAnswers(assessment.answers, required);
  if (absent.length === 0) return { required, missing: [] };
  const set = await questionSetVersion(em, assessment.product, assessment.questionSetVersion);
  const conditional = new Set(
    questionsOf(schemaOf(set))
      .filter((question) => question.conditional)
      .map((question) => question.pointer),
  );
  // A conditional question is missing when the whole set, checked, says so.
  const demanded = new Set(
    validatorOf(set)
      .submitted(assessment.answers)
      .filter((problem) => problem.message.startsWith('required'))
      .map((problem) => problem.pointer),
  );
  return { required, missing: absent.filter((pointer) => !conditional.has(pointer) || demanded.has(pointer)) };
}
