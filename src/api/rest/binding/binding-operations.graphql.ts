import { REST_TENDER } from '../tenders/tender-operations.graphql';

/** A subjectivity in the REST (snake_case) names. */
const REST_SUBJECTIVITY = /* GraphQL */ `
  fragment RestSubjectivity on Subjectivity {
    _id: id
    quote_option_id: quoteOptionId
    insurer_id: insurerId
    stage
    text
    due_at: dueAt
    status
    history {
      at
      actor
      actor_role: actorRole
      kind
      text
      document_ids: documentIds
    }
  }
`;

/** The GraphQL operations behind the REST binding routes; aliases give the REST field names. */
export const REST_TENDER_SUBJECTIVITIES = /* GraphQL */ `
  query RestTenderSubjectivities($tenderId: ID!) {
    tenderSubjectivities(tenderId: $tenderId) {
      ...RestSubjectivity
    }
  }
  ${REST_SUBJECTIVITY}
`;

export const REST_DECIDE_SUBJECTIVITY = /* GraphQL */ `
  mutation RestDecideSubjectivity($input: DecideSubjectivityInput!) {
    decideSubjectivity(input: $input) {
      ...RestSubjectivity
    }
  }
  ${REST_SUBJECTIVITY}
`;

export const REST_ACCEPT_COVER_ORDER = /* GraphQL */ `
  mutation RestAcceptCoverOrder($id: ID!, $inceptionDate: String!) {
    acceptCoverOrder(tenderId: $id, inceptionDate: $inceptionDate) {
      ...RestTender
    }
  }
  ${REST_TENDER}
`;

export const REST_DECLINE_COVER_ORDER = /* GraphQL */ `
  mutation RestDeclineCoverOrder($id: ID!, $reason: String!) {
    declineCoverOrder(tenderId: $id, reason: $reason) {
      ...RestTender
    }
  }
  ${REST_TENDER}
`;
