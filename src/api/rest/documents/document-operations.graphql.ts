/**
 * The GraphQL operation the document routes run: the tender's documents the viewer may see (the access policy's
 * rule, applied by `Tender.documents`), in the names of the REST list; the content route picks one of them. A
 * tender redacted for the viewer (an insurer's CLOSED or lost tender) withholds them: the routes answer 404.
 */
export const REST_TENDER_DOCUMENTS = /* GraphQL */ `
  query RestTenderDocuments($id: ID!) {
    tender(id: $id) {
      redacted
      documents {
        _id: id
        kind
        filename
        content_type: contentType
        size
        sha256
        created_at: createdAt
        quote_request_id: quoteRequestId
      }
    }
  }
`;
