import { TENDER_FIELD_LIST, type Shape } from '../../../tenders';

/** `_id: id`: a field under its name in the specification, when that differs from its GraphQL name. */
const aliased = (name: string, spec: string) => (spec === name ? name : `${spec}: ${name}`);

function selectionOf(shape: Shape<unknown>): string {
  const fields = Object.entries(shape.fields).map(([name, field]) =>
    'fields' in field.kind ? `${aliased(name, field.spec)} { ${selectionOf(field.kind)} }` : aliased(name, field.spec),
  );
  return fields.join(' ');
}

/**
 * The GraphQL operations behind the REST tender routes. Aliases produce the REST field names of spec 2.1, in the
 * order of the tender's declaration (src/tenders/shape/tender-fields.ts), so the representation has exactly one
 * source: that declaration, served by the GraphQL schema and its resolvers.
 */
export const REST_TENDER = `
  fragment RestTender on Tender {
    ${TENDER_FIELD_LIST.map((field) =>
      field.source === 'column' ? aliased(field.name, field.spec) : `${aliased(field.name, field.spec)} { ${selectionOf(field.shape)} }`,
    ).join('\n    ')}
  }
`;

export const REST_TENDER_LIST = /* GraphQL */ `
  query RestTenderList(
    $status: [TenderStatus!]
    $lineOfBusinessId: ID
    $updatedSince: DateTimeISO
    $sort: [TenderSort!]
    $skip: Int
    $limit: Int
    $after: String
  ) {
    tenders(
      status: $status
      lineOfBusinessId: $lineOfBusinessId
      updatedSince: $updatedSince
      sort: $sort
      skip: $skip
      limit: $limit
      after: $after
    ) {
      count
      skip
      limit
      next
      items {
        ...RestTender
      }
    }
  }
  ${REST_TENDER}
`;

export const REST_TENDER_BY_ID = /* GraphQL */ `
  query RestTender($id: ID!) {
    tender(id: $id) {
      ...RestTender
    }
  }
  ${REST_TENDER}
`;

export const REST_CONFIRM_POLICY_DOCUMENTATION = /* GraphQL */ `
  mutation RestConfirmPolicyDocumentation($id: ID!, $policyNumber: String!, $confirmedAt: DateTimeISO, $documentId: ID) {
    confirmPolicyDocumentation(tenderId: $id, policyNumber: $policyNumber, confirmedAt: $confirmedAt, documentId: $documentId) {
      ...RestTender
    }
  }
  ${REST_TENDER}
`;

export const REST_TENDER_ACCESS_LOG = /* GraphQL */ `
  query RestTenderAccessLog($tenderId: ID!, $skip: Int, $limit: Int) {
    tenderAccessLog(tenderId: $tenderId, skip: $skip, limit: $limit) {
      count
      skip
      limit
      items {
        at
        app_id: appId
        role
        party {
          _id: id
          name
        }
        surface
        operation
        count
      }
    }
  }
`;
