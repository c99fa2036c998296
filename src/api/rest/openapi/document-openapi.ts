import { rolesFor } from '../../../access';
import { LINK_PATH, STORED_CONTENT_TYPES, UPLOAD_PATH } from '../../../documents';
import { DOCUMENT_ROUTES } from '../documents/document.routes';
import { bearerErrors, id, listOf, nullable, problem, ref, timestamp } from './openapi-parts';

/** The document routes (docs/documents.md): each read API's list and content, the upload URL, the gateway's download links. */
export const documentSchemas = {
  Document: {
    type: 'object',
    required: ['_id', 'kind', 'filename', 'content_type', 'size', 'sha256', 'created_at', 'quote_request_id'],
    additionalProperties: false,
    properties: {
      _id: id,
      kind: {
        enum: ['RISK', 'QUOTE', 'POLICY', 'OTHER', 'ADVICE'],
        description: "ADVICE: the proposal comparison a broker showed its client (exportProposal); listed to the tender's broker only.",
      },
      filename: { type: 'string', maxLength: 255, examples: ['questionnaire.pdf'] },
      content_type: { enum: [...STORED_CONTENT_TYPES], description: 'application/json only for ADVICE documents (their JSON export).' },
      size: { type: 'integer', minimum: 1 },
      sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      created_at: timestamp,
      quote_request_id: { ...nullable(id), description: 'The quote request of a QUOTE document.' },
    },
  },
  DocumentList: listOf(ref('Document'), { sort: { type: 'object', additionalProperties: false } }),
};

const tag = { type: 'string' };
const bytes = {
  description: 'The bytes, as an attachment.',
  headers: {
    ETag: { description: 'The SHA-256 of the bytes, quoted.', schema: tag },
    'Content-Disposition': { description: 'attachment, with the safe file name.', schema: tag },
  },
  content: Object.fromEntries(STORED_CONTENT_TYPES.map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
};
const pathParameter = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });
const ifNoneMatch = {
  name: 'If-None-Match',
  in: 'header',
  schema: tag,
  description:
    'Entity tags of the bytes held (a list; weak tags compare by their opaque part), or `*`: 304 when one names these bytes, or for `*` (the document exists).',
};
const unchanged = { description: 'The client holds these bytes (If-None-Match names their tag, or is `*`); no body.' };
const redirect = {
  description: 'The S3 store: a signed link to the bytes, valid about a minute (long enough to follow it).',
  headers: { Location: { $ref: '#/components/headers/Location' } },
};
const storeUnavailable = problem(
  "The document's bytes are in a store this gateway cannot read (a store switched away from, not configured): the problem names it.",
);

const readRoutes = DOCUMENT_ROUTES.flatMap((route): [string, object][] => {
  const base = route.prefix.replace(':id', '{id}');
  const roles = rolesFor(route.access).join(', ');
  return [
    [
      base,
      {
        get: {
          summary: "The tender's documents the viewer may see",
          description: `Roles: ${roles}. The broker and internal users see every document (ADVICE documents only they); an invited insurer the RISK and OTHER documents while the tender is open, its own QUOTE documents, and the POLICY document if it won. A tender the viewer may not see, or an insurer's CLOSED or lost tender, is a 404.`,
          security: [{ bearer: [] }],
          parameters: [pathParameter('id')],
          responses: {
            '200': {
              description: 'The documents, oldest first (at most 100 of the broker side and 20 of each insurer).',
              content: { 'application/json': { schema: ref('DocumentList') } },
            },
            '400': problem('Query parameters are not accepted here.'),
            '404': problem('No tender with this id whose documents the viewer may see.'),
            ...bearerErrors,
          },
        },
      },
    ],
    [
      `${base}/{documentId}/content`,
      {
        get: {
          summary: 'The bytes of one document',
          description: `Roles: ${roles}. The bytes (a document in the filesystem store), or a 302 to a signed link valid about a minute (a document in the S3 store). Each document is read from the store it was written to.`,
          security: [{ bearer: [] }],
          parameters: [pathParameter('id'), pathParameter('documentId'), ifNoneMatch],
          responses: {
            '200': bytes,
            '302': redirect,
            '304': unchanged,
            '400': problem('Query parameters are not accepted here.'),
            '404': problem('No document with this id the viewer may see.'),
            '503': storeUnavailable,
            ...bearerErrors,
          },
        },
      },
    ],
  ];
});

export const documentPaths = {
  ...Object.fromEntries(readRoutes),
  [`${UPLOAD_PATH}/{token}`]: {
    put: {
      summary: "Upload a document's bytes",
      description:
        "The uploadUrl of createDocumentUpload: one PUT of exactly the declared bytes, within 15 minutes, once. No bearer token: the URL is the credential. The document becomes visible once the bytes matched its size, SHA-256 and content type; otherwise nothing is stored and the URL is spent. At most DOCUMENT_UPLOAD_CONCURRENCY uploads run at once per process, DOCUMENT_UPLOAD_CONCURRENCY_PER_CLIENT of one API client's slots: beyond, 503 with Retry-After before the body is read, the URL still valid. An upload must arrive at DOCUMENT_UPLOAD_MIN_RATE over each DOCUMENT_UPLOAD_RATE_WINDOW (else 408) and end within its deadline (else 503).",
      security: [],
      parameters: [pathParameter('token')],
      requestBody: { required: true, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
      responses: {
        '200': { description: 'The document, now visible.', content: { 'application/json': { schema: ref('Document') } } },
        '400': problem('The bytes do not match the declared size or SHA-256.'),
        '404': problem(
          "No upload at this URL: unknown, used or expired; or an insurer's slot on a tender that closed (or went to another insurer) while the bytes arrived.",
        ),
        '408': problem('The bytes arrived slower than the minimum rate: stopped, nothing stored, the URL spent.'),
        '415': problem('The bytes are not of the declared content type.'),
        '429': problem('Too many requests from this address (Retry-After).'),
        '503': problem(
          'Too many uploads in flight, in the process or of the API client that created the slot (Retry-After; sent before the body is read, the URL still valid); or the upload took longer than its deadline (nothing stored, the URL spent).',
        ),
      },
    },
  },
  [`${LINK_PATH}/{token}`]: {
    get: {
      summary: 'A download link',
      description:
        "Document.downloadUrl, on both stores: valid at most 15 minutes, for its own document and whom it was given to only; the document's visibility to them is checked again when it is used. No bearer token: the link is the credential.",
      security: [],
      parameters: [pathParameter('token'), ifNoneMatch],
      responses: {
        '200': bytes,
        '302': redirect,
        '304': unchanged,
        '404': problem('No document at this link: unknown, expired, deleted, or no longer visible to whom it was given.'),
        '503': storeUnavailable,
        '429': problem('Too many requests from this address (Retry-After).'),
      },
    },
  },
};
