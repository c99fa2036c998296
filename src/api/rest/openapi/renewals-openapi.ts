import { rolesFor } from '../../../access';
import { LIMITS } from '../../../platform/validation/rules';
import { RENEWALS_ROUTE, RENEWAL_STATUSES } from '../renewals/renewals.routes';
import { bearerErrors, countedListOf, problem, ref, timestamp } from './openapi-parts';

/** Renewals' REST part (docs/renewals.md): what is due before a day. */
export const renewalsSchemas = {
  RenewalList: countedListOf(ref('Tender'), { count: { examples: ['1'] } }),
};

export const renewalsPaths = {
  [RENEWALS_ROUTE.path]: {
    get: {
      summary: 'Renewals due',
      description: `Roles: ${rolesFor(RENEWALS_ROUTE.access).join(', ')}. The SUCCESSFUL tenders whose notice deadline (\`renewal.notice_deadline\`) comes before \`due_before\`, soonest first: a broker its company's, internal users everyone's. The REST form of the renewals query; read only.`,
      security: [{ bearer: [] }],
      parameters: [
        {
          name: 'due_before',
          in: 'query',
          required: true,
          schema: timestamp,
          description: 'Notice deadlines up to this time (ISO 8601).',
        },
        {
          name: 'status',
          in: 'query',
          required: false,
          schema: { enum: [...RENEWAL_STATUSES] },
          description: 'OPEN (deadline ahead, no notice), NOTICE_GIVEN, or DEADLINE_PASSED.',
        },
        {
          name: 'limit',
          in: 'query',
          required: false,
          schema: { type: 'integer', minimum: 1, maximum: LIMITS.pageSize, default: 100 },
        },
      ],
      responses: {
        '200': {
          description: 'The tenders, their `renewal` terms among their fields.',
          headers: { 'Cache-Control': { $ref: '#/components/headers/Cache-Control' } },
          content: { 'application/json': { schema: ref('RenewalList') } },
        },
        '400': problem('due_before missing or malformed, or an unknown, repeated or malformed parameter.'),
        ...bearerErrors,
      },
    },
  },
};
