import { REST_TENDER } from '../tenders/tender-operations.graphql';

/** The GraphQL operation behind GET /api/v1/renewals: each renewal's tender in the REST names (its `renewal` among them). */
export const REST_RENEWALS = /* GraphQL */ `
  query RestRenewals($dueBefore: DateTimeISO!, $status: RenewalStatus, $limit: Int) {
    renewals(dueBefore: $dueBefore, status: $status, limit: $limit) {
      tender {
        ...RestTender
      }
    }
  }
  ${REST_TENDER}
`;
