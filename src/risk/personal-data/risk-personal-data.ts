import { ERASED, erasedJson, type PersonalData } from '../../parties';
import { RiskAssessment } from '../assessment/risk-assessment.entity';
import { QuestionSet } from '../question-sets/question-set.entity';
import { schemaOf } from '../question-sets/question-set-versions';
import { replacePersonalAnswers } from '../question-sets/answers-projection';

/**
 * The risk assessments' part of a customer's personal data. The erasure empties every answer under a question marked
 * `x-personal-data` (whatever its type: an empty string, or null) and, as for the risk information, every string of
 * the other answers (free text may name anyone); the structure, numbers, booleans and currency codes stay, so the
 * market's figures do. The export shows each tender's answers whole, with their sources and question set version.
 */
export const riskPersonalData: PersonalData = {
  fields: [{ entity: 'RiskAssessment', property: 'answers' }],
  async erase(tx, scope) {
    const assessments = await tx.find(RiskAssessment, { tender: { customer: scope.customerId } }, { orderBy: { id: 'asc' } });
    for (const assessment of assessments) {
      const set = await tx.findOne(QuestionSet, { product: assessment.product, version: assessment.questionSetVersion });
      const withoutPersonal = set
        ? replacePersonalAnswers(schemaOf(set), assessment.answers, (value) => (typeof value === 'string' ? ERASED : null))
        : assessment.answers;
      assessment.answers = erasedJson(withoutPersonal) as Record<string, unknown>;
      assessment.erasedAt ??= scope.at;
      assessment.version += 1;
      assessment.updatedAt = scope.at;
    }
    await tx.flush();
    return {};
  },
  async export(em, scope) {
    const assessments = await em.find(RiskAssessment, { tender: { $in: [...scope.tenderIds] } });
    return {
      tenders: new Map(
        assessments.map((assessment) => [
          assessment.tender.id,
          {
            risk_assessment: {
              product: assessment.product,
              question_set_version: assessment.questionSetVersion,
              status: assessment.status,
              answers: assessment.answers,
              sources: assessment.sources,
            },
          },
        ]),
      ),
    };
  },
};
