import { rolesFor } from '../../../access';
import { LIMITS } from '../../../platform/validation/rules';
import { MESSAGE_ROUTES } from '../messages/message.routes';
import { bearerErrors, countedListOf, problem, ref, timestamp } from './openapi-parts';

/** The clarification threads' REST parts (docs/people.md): a tender's messages, read under /public/v1 and /api/v1. */
export const messageSchemas = {
  TenderMessage: {
    type: 'object',
    description: 'A message in the clarification thread of a tender and one insurer.',
    required: ['_id', 'tender_id', 'insurer_id', 'author_role', 'text', 'document_ids', 'requests_information', 'created_at'],
    additionalProperties: false,
    properties: {
      _id: { type: 'string' },
      tender_id: { type: 'string' },
      insurer_id: { type: 'string', description: 'The insurer whose thread it is.' },
      author_role: { enum: ['BROKER', 'INSURER', 'INTERNAL'], description: 'Which side wrote it.' },
      text: {
        type: 'string',
        maxLength: LIMITS.messageText,
        description: "Several lines of free text; empty once the customer's personal data was erased.",
      },
      document_ids: {
        type: 'array',
        maxItems: LIMITS.documentsPerMessage,
        items: { type: 'string' },
        description: 'Documents of the tender it points to, each one the insurer sees.',
      },
      requests_information: { type: 'boolean', description: 'It asks the other side for information.' },
      created_at: timestamp,
    },
  },
  TenderMessageList: countedListOf(ref('TenderMessage'), { count: { examples: ['2'] }, payload: { description: 'Oldest first.' } }),
};

const example = {
  metadata: { count: '2' },
  payload: [
    {
      _id: '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9',
      tender_id: '7d3c9a52-4f1e-4b8a-9c6d-2e5f8a1b0c34',
      insurer_id: '5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e',
      author_role: 'INSURER',
      text: 'Are the backups kept offline?',
      document_ids: [],
      requests_information: true,
      created_at: '2026-05-04T09:15:00.000Z',
    },
    {
      _id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
      tender_id: '7d3c9a52-4f1e-4b8a-9c6d-2e5f8a1b0c34',
      insurer_id: '5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e',
      author_role: 'BROKER',
      text: 'Yes, weekly, see the attached backup concept.',
      document_ids: ['9e8d7c6b-5a49-4382-9160-f5e4d3c2b1a0'],
      requests_information: false,
      created_at: '2026-05-04T10:02:00.000Z',
    },
  ],
};

const WHOSE: Record<(typeof MESSAGE_ROUTES)[number]['access'], string> = {
  insurerApi: 'An invited insurer reads its own thread; none once the tender is closed or awarded to another insurer (data privacy).',
  brokerApi: "The tender's broker reads every thread of the tender, or one with `insurer_id`.",
};

const insurerIdParameter = {
  name: 'insurer_id',
  in: 'query',
  required: false,
  schema: { type: 'string', minLength: 1 },
  description: "One insurer's thread; every thread when left out.",
};

export const messagePaths = Object.fromEntries(
  MESSAGE_ROUTES.map((route) => [
    route.path.replace(/:(\w+)/g, '{$1}'),
    {
      get: {
        summary: "A tender's clarification messages",
        description: `Roles: ${rolesFor(route.access).join(', ')}. ${WHOSE[route.access]} The REST form of the tenderMessages query; posting is GraphQL's postTenderMessage (docs/people.md).`,
        security: [{ bearer: [] }],
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: "The tender's _id." },
          ...(route.byInsurer ? [insurerIdParameter] : []),
        ],
        responses: {
          '200': {
            description: 'The messages, oldest first.',
            headers: { 'Cache-Control': { $ref: '#/components/headers/Cache-Control' } },
            content: { 'application/json': { schema: ref('TenderMessageList'), example } },
          },
          '400': problem(route.byInsurer ? 'An unknown, repeated or empty query parameter.' : 'Query parameters are not accepted here.'),
          '404': problem('No tender with this id visible to the client, or (an insurer) the tender is closed.'),
          ...bearerErrors,
        },
      },
    },
  ]),
);
