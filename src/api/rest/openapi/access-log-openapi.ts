import { AccessSurface, ROLES, Role, rolesFor } from '../../../access';
import { LIMITS } from '../../../platform/validation/rules';
import { ACCESS_LOG_ROUTE } from '../tenders/tender.routes';
import { bearerErrors, id, listOf, nullable, problem, ref, timestamp } from './openapi-parts';

/** Who read a tender's personal data (docs/privacy.md): the entries and the route. */
export const accessLogSchemas = {
  AccessLogEntry: {
    type: 'object',
    required: ['at', 'app_id', 'role', 'party', 'surface', 'operation', 'count'],
    additionalProperties: false,
    properties: {
      at: { ...timestamp, description: 'The first read this entry counts.' },
      app_id: { type: 'string', description: 'The reading API client.' },
      role: { enum: ROLES.filter((role) => role === Role.INSURER || role === Role.BROKER) },
      party: {
        type: 'object',
        required: ['_id', 'name'],
        additionalProperties: false,
        description: "The client's insurer or broker company.",
        properties: { _id: id, name: { ...nullable({ type: 'string' }), description: 'Null when the party no longer exists.' } },
      },
      surface: { enum: Object.values(AccessSurface) },
      operation: { type: 'string', examples: ['GET /api/v1/tenders/:id', 'tenders'], description: 'The REST route or the GraphQL field.' },
      count: { type: 'integer', minimum: 1, description: 'Reads within the minute from `at`.' },
    },
  },
  AccessLogList: listOf(ref('AccessLogEntry'), { sort: { type: 'object', additionalProperties: false } }),
};

export const accessLogPaths = {
  [ACCESS_LOG_ROUTE.path.replace(':id', '{id}')]: {
    get: {
      summary: "Who read the tender's personal data",
      description:
        `Roles: ${rolesFor(ACCESS_LOG_ROUTE.access).join(', ')}; an insurer always gets a 404, as does a broker for another company's tender. ` +
        "Every answer that carried the tender's customer or person data to an insurer or broker client (REST, GraphQL, document content), newest first; " +
        'reads of one client on one operation within a minute are one entry with their count. Records are written in batches about a second apart, ' +
        'kept ACCESS_LOG_RETENTION (400 days by default), and no API changes or deletes one.',
      security: [{ bearer: [] }],
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'skip', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 }, description: 'Offset.' },
        {
          name: 'limit',
          in: 'query',
          schema: { type: 'integer', minimum: 1, maximum: LIMITS.pageSize, default: LIMITS.defaultPageSize },
          description: 'Page size.',
        },
      ],
      responses: {
        '200': { description: 'A page of the access log.', content: { 'application/json': { schema: ref('AccessLogList') } } },
        '400': problem('A query parameter is unknown, repeated or malformed; errors[].parameter names it.'),
        '404': problem('No tender with this id whose access log the viewer may read.'),
        ...bearerErrors,
      },
    },
  },
};
