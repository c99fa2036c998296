import { QuestionSetResolver } from './question-sets/question-set.resolver';
import { QuestionSet } from './question-sets/question-set.entity';
import { InsurerRequirementsResolver } from './requirements/insurer-requirements.resolver';
import { InsurerRequirement } from './requirements/insurer-requirement.entity';
import { RiskAssessmentResolver, TenderRiskAssessmentResolver } from './assessment/risk-assessment.resolver';
import { RiskAssessment } from './assessment/risk-assessment.entity';
import { QuestionnaireLinkResolver } from './questionnaire/questionnaire-link.resolver';

/** What the risk assessment adds to the composition: the schema and the database take it from here. */
export const riskModule = {
  /** Its GraphQL resolvers (the schema, api/graphql/schema.ts). */
  resolvers: [
    QuestionSetResolver,
    InsurerRequirementsResolver,
    TenderRiskAssessmentResolver,
    RiskAssessmentResolver,
    QuestionnaireLinkResolver,
  ],
  /** Its entities (the database, src/database.ts). */
  entities: [QuestionSet, InsurerRequirement, RiskAssessment],
};
