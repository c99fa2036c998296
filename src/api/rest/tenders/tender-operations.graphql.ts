/**
 * The GraphQL operations behind the REST tender routes. Aliases produce the REST field names of spec 2.1,
 * so the representation has exactly one source: the GraphQL schema and its resolvers.
 */
const REST_TENDER = /* GraphQL */ `
  fragment RestAddress on Address {
    street
    house_number: houseNumber
    zip
    city
    country
  }

  fragment RestTender on Tender {
    _id: id
    changes_metadata: changesMetadata
    created_at: createdAt
    updated_at: updatedAt
    product
    status
    tax_rate: taxRate
    line_of_business: lineOfBusiness {
      _id: id
      name
    }
    customer {
      _id: id
      address {
        ...RestAddress
      }
      company_id: companyId
      name
    }
    broker_company: brokerCompany {
      _id: id
      address {
        ...RestAddress
      }
      company_id: companyId
      email
      name
    }
    person_in_charge: personInCharge {
      _id: id
      account_id: accountId
      email
      first_name: firstName
      last_name: lastName
      salutation
    }
    policy_documentation: policyDocumentation {
      status
      policy_number: policyNumber
      confirmed_at: confirmedAt
    }
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
  mutation RestConfirmPolicyDocumentation($id: ID!, $policyNumber: String!, $confirmedAt: DateTimeISO) {
    confirmPolicyDocumentation(tenderId: $id, policyNumber: $policyNumber, confirmedAt: $confirmedAt) {
      ...RestTender
    }
  }
  ${REST_TENDER}
`;
