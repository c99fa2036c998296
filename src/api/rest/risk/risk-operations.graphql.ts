/** The GraphQL operations behind the REST risk routes; aliases give the REST (snake_case) field names. */
const QUESTION_SET_FIELDS = /* GraphQL */ `
  fragment RestQuestionSetFields on QuestionSet {
    product
    version
    line_of_business_id: lineOfBusinessId
    digest
    published_at: publishedAt
    retired_at: retiredAt
  }
`;

const ASSESSMENT = /* GraphQL */ `
  fragment RestRiskAssessment on RiskAssessment {
    tender_id: tenderId
    question_set: questionSet {
      product
      version
    }
    status
    version
    answers
    sources {
      pointer
      source
      by
      at
    }
    submitted_at: submittedAt
    updated_at: updatedAt
  }
`;

/** The list shows no schemas: a client fetches the version it needs, with its ETag. */
export const REST_QUESTION_SETS = /* GraphQL */ `
  ${QUESTION_SET_FIELDS}
  query RestQuestionSets($product: String) {
    questionSets(product: $product) {
      ...RestQuestionSetFields
    }
  }
`;

export const REST_QUESTION_SET = /* GraphQL */ `
  ${QUESTION_SET_FIELDS}
  query RestQuestionSet($product: String!, $version: Int) {
    questionSet(product: $product, version: $version) {
      ...RestQuestionSetFields
      schema
    }
  }
`;

export const REST_RISK_ASSESSMENT = /* GraphQL */ `
  ${ASSESSMENT}
  query RestRiskAssessment($id: ID!) {
    tender(id: $id) {
      risk_assessment: riskAssessment {
        ...RestRiskAssessment
      }
    }
  }
`;

export const REST_SAVE_RISK_ANSWERS = /* GraphQL */ `
  ${ASSESSMENT}
  mutation RestSaveRiskAnswers(
    $tenderId: ID!
    $answers: JSONObject!
    $expectedVersion: Int!
    $submit: Boolean
    $source: AnswerSource
    $confirm: [String!]
  ) {
    saveRiskAnswers(
      tenderId: $tenderId
      answers: $answers
      expectedVersion: $expectedVersion
      submit: $submit
      source: $source
      confirm: $confirm
    ) {
      ...RestRiskAssessment
    }
  }
`;
