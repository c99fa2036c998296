/** The face of the risk assessment: question sets, insurers' requirements and a tender's answers (docs/risk-assessment.md). */
export { QuestionSet } from './question-sets/question-set.entity';
export { QuestionSetService, type Publication } from './question-sets/question-set.service';
export { validatorOf } from './question-sets/question-set-versions';
export { questionSetProblems } from './question-sets/question-set-check';
export { diffQuestionSets, type QuestionSetChange } from './question-sets/question-set-diff';
export { answersShapeProblems, type AnswerProblem } from './question-sets/answers-validator';
export { InsurerRequirement } from './requirements/insurer-requirement.entity';
export { RiskAssessment } from './assessment/risk-assessment.entity';
export { RiskAssessmentService } from './assessment/risk-assessment.service';
export { AnswerSource, RiskAssessmentStatus } from './assessment/risk-assessment-status';
export { answersForInsurer } from './assessment/insurer-answers';
export { insurerNeeds } from './assessment/insurer-missing-answers';
// questionnaire/: the customer's questionnaire page reads and saves through its link (api/pages)
export { openQuestionnaire, saveQuestionnaire, type Questionnaire } from './questionnaire/questionnaire';
// risk-rules.ts: the REST body of a save (the REST shim and OpenAPI)
export { RiskAnswersBody } from './risk-rules';
// personal-data/: the risk answers' part of a customer's personal data (privacy erases and exports it)
export { riskPersonalData } from './personal-data/risk-personal-data';
export type { RiskContext } from './risk-context';
export type { RiskEventListener } from './risk-events';
// module.ts: what the composition (the schema, the database) takes of the feature
export { riskModule } from './module';
