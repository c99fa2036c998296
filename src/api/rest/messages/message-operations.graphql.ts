/** The GraphQL operation behind the REST message routes; aliases give the REST (snake_case) field names. */
export const REST_TENDER_MESSAGES = /* GraphQL */ `
  query RestTenderMessages($tenderId: ID!, $insurerId: ID) {
    tenderMessages(tenderId: $tenderId, insurerId: $insurerId) {
      _id: id
      tender_id: tenderId
      insurer_id: insurerId
      author_role: authorRole
      text
      document_ids: documentIds
      requests_information: requestsInformation
      created_at: createdAt
    }
  }
`;
