import { rolesFor } from '../../../access';
import { LIMITS } from '../../../platform/validation/rules';
import { CoverOrderDecisionBody, SubjectivityDecisionBody } from '../../../quotes';
import { COVER_ORDER_DECISION_ROUTE, SUBJECTIVITY_DECISION_ROUTE, SUBJECTIVITY_ROUTES } from '../binding/binding.routes';
import { bearerErrors, countedListOf, id, nullable, problem, ref, timestamp } from './openapi-parts';

/** The binding's REST parts (docs/lifecycle.md, "Binding"): a tender's subjectivities, the insurer's decisions. */
export const bindingSchemas = {
  Subjectivity: {
    type: 'object',
    description: 'A condition of a quote option, tracked from OPEN to ACCEPTED or WAIVED.',
    required: ['_id', 'quote_option_id', 'insurer_id', 'stage', 'text', 'due_at', 'status', 'history'],
    additionalProperties: false,
    properties: {
      _id: nullable(id),
      quote_option_id: nullable(id),
      insurer_id: nullable({ ...id, description: 'The quoting insurer, who decides on it.' }),
      stage: { enum: ['PRE_BIND', 'POST_BIND'] },
      text: { type: 'string' },
      due_at: nullable(timestamp),
      status: { enum: ['OPEN', 'RESPONDED', 'ACCEPTED', 'REJECTED', 'WAIVED'] },
      history: {
        type: 'array',
        description: 'Responses and decisions, oldest first.',
        items: {
          type: 'object',
          required: ['at', 'actor', 'actor_role', 'kind', 'text', 'document_ids'],
          additionalProperties: false,
          properties: {
            at: timestamp,
            actor: nullable({ type: 'string', description: 'The app_id of the client; null for insurers.' }),
            actor_role: { enum: ['INSURER', 'BROKER', 'INTERNAL', 'ANALYST'] },
            kind: { enum: ['RESPONDED', 'ACCEPTED', 'REJECTED', 'WAIVED'] },
            text: nullable({ type: 'string', maxLength: LIMITS.subjectivityResponse }),
            document_ids: { type: 'array', items: { type: 'string' } },
          },
        },
      },
    },
  },
  SubjectivityList: countedListOf(ref('Subjectivity'), { count: { examples: ['2'] } }),
};

const tenderId = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: "The tender's _id." };

const WHOSE: Record<(typeof SUBJECTIVITY_ROUTES)[number]['access'], string> = {
  insurerApi: "A quoting insurer reads its own options' subjectivities; none once the tender is closed or awarded to another insurer.",
  brokerApi: "The tender's broker reads every option's.",
};

export const bindingPaths = {
  ...Object.fromEntries(
    SUBJECTIVITY_ROUTES.map((route) => [
      route.path.replace(/:(\w+)/g, '{$1}'),
      {
        get: {
          summary: "A tender's subjectivities",
          description: `Roles: ${rolesFor(route.access).join(', ')}. ${WHOSE[route.access]} The REST form of the tenderSubjectivities query; responses are GraphQL's respondToSubjectivity.`,
          security: [{ bearer: [] }],
          parameters: [tenderId],
          responses: {
            '200': {
              description: 'The subjectivities, by quote and option, in the insurer’s order.',
              headers: { 'Cache-Control': { $ref: '#/components/headers/Cache-Control' } },
              content: { 'application/json': { schema: ref('SubjectivityList') } },
            },
            '400': problem('Query parameters are not accepted here.'),
            '404': problem('No tender with this id visible to the client.'),
            ...bearerErrors,
          },
        },
      },
    ]),
  ),
  [SUBJECTIVITY_DECISION_ROUTE.path.replace(/:(\w+)/g, '{$1}')]: {
    post: {
      summary: 'Decide on a subjectivity',
      description: `Roles: ${rolesFor(SUBJECTIVITY_DECISION_ROUTE.access).join(', ')} (an insurer only for its own quote). The REST form of the decideSubjectivity mutation: ACCEPT or WAIVE clears it, REJECT (of a response, with a reason) asks the broker for another.`,
      security: [{ bearer: [] }],
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: "The subjectivity's _id." }],
      requestBody: { required: true, content: { 'application/json': { schema: SubjectivityDecisionBody } } },
      responses: {
        '200': { description: 'The subjectivity as it now stands.', content: { 'application/json': { schema: ref('Subjectivity') } } },
        '400': problem('Malformed body, or REJECT without a reason.'),
        '404': problem('No such subjectivity visible to the client.'),
        '409': problem(
          'The tender is CLOSED (INVALID_TRANSITION), or the subjectivity is already decided or not of the ordered option (CONFLICT).',
        ),
        '413': problem('Body too large.'),
        '415': problem('Body is not application/json.'),
        ...bearerErrors,
        '403': problem("The token's role may not decide, or it is another insurer's subjectivity."),
      },
    },
  },
  [COVER_ORDER_DECISION_ROUTE.path.replace(/:(\w+)/g, '{$1}')]: {
    post: {
      summary: 'Accept or decline the order to cover',
      description: `Roles: ${rolesFor(COVER_ORDER_DECISION_ROUTE.access).join(', ')} (an insurer only for the option ordered from it). The REST form of acceptCoverOrder (the status stays IN_COVERNOTE) and declineCoverOrder (back to IN_NEGOTIATION, the order dropped).`,
      security: [{ bearer: [] }],
      parameters: [tenderId],
      requestBody: { required: true, content: { 'application/json': { schema: CoverOrderDecisionBody } } },
      responses: {
        '200': { description: 'The tender as the insurer now sees it.', content: { 'application/json': { schema: ref('Tender') } } },
        '400': problem('Malformed body, ACCEPT without inception_date, or DECLINE without reason.'),
        '404': problem('No such tender visible to the client.'),
        '409': problem('Not IN_COVERNOTE (INVALID_TRANSITION), or answered already (CONFLICT).'),
        '413': problem('Body too large.'),
        '415': problem('Body is not application/json.'),
        ...bearerErrors,
        '403': problem("The token's role may not answer orders, or the client is not the insurer of the ordered option."),
      },
    },
  },
};
