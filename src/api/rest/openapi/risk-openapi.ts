import { rolesFor } from '../../../access';
import { LIMITS } from '../../../platform/validation/rules';
import { AnswerSource, RiskAnswersBody, RiskAssessmentStatus } from '../../../risk';
import { ASSESSMENT_ROUTES, QUESTION_SET_ROUTES, SAVE_ASSESSMENT_ROUTE } from '../risk/risk.routes';
import { bearerErrors, conditional, countedListOf, id, ifNoneMatch, notModified, nullable, problem, ref, timestamp } from './openapi-parts';

/** The risk assessment's REST parts (docs/risk-assessment.md): question sets, a tender's assessment, saving its answers. */
const DIGEST = '9f2c4e1a7b3d5f60812a4c6e8b0d2f41a3c5e7f9b1d3f5a7c9e1b3d5f7a9c1e3';

const questionSetFields = {
  product: { type: 'string', description: 'The product, as tenders name it.', examples: ['Cyber Protect'] },
  version: { type: 'integer', minimum: 1, description: "1 for the product's first set; each publication the one before plus one." },
  line_of_business_id: { type: 'string', examples: ['c6fda089-bcd2-4deb-bb8f-f480bf5f07f8'] },
  digest: { type: 'string', pattern: '^[0-9a-f]{64}$', description: "SHA-256 (hex) of the schema's JSON, as published." },
  published_at: timestamp,
  retired_at: { ...nullable(timestamp), description: 'Once retired, no tender starts on this version; tenders on it keep it.' },
};

const summaryExample = {
  product: 'Cyber Protect',
  version: 2,
  line_of_business_id: 'c6fda089-bcd2-4deb-bb8f-f480bf5f07f8',
  digest: DIGEST,
  published_at: '2026-05-04T09:15:00.000Z',
  retired_at: null,
};

const schemaExample = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  'x-label': { de: 'Cyber-Risikofragebogen', en: 'Cyber risk questionnaire' },
  type: 'object',
  additionalProperties: false,
  required: ['turnover', 'type_of_business', 'employees'],
  properties: {
    turnover: {
      'x-label': { de: 'Umsatz', en: 'Turnover' },
      type: 'object',
      additionalProperties: false,
      required: ['amount', 'currency'],
      properties: {
        amount: { 'x-label': { de: 'Betrag', en: 'Amount' }, type: 'number', minimum: 0, 'x-unit': 'EUR' },
        currency: { 'x-label': { de: 'Währung', en: 'Currency' }, type: 'string', enum: ['EUR', 'CHF'] },
      },
    },
    type_of_business: { 'x-label': { de: 'Art des Geschäfts', en: 'Type of business' }, type: 'string', maxLength: 200 },
    employees: { 'x-label': { de: 'Beschäftigte', en: 'Employees' }, type: 'integer', minimum: 0 },
  },
};

const answersExample = {
  turnover: { amount: 5_000_000, currency: 'EUR' },
  type_of_business: 'Software',
  employees: 42,
  mfa: true,
};

const assessmentExample = {
  tender_id: '7d3c9a52-4f1e-4b8a-9c6d-2e5f8a1b0c34',
  question_set: { product: 'Cyber Protect', version: 2 },
  status: 'SUBMITTED',
  version: 3,
  answers: answersExample,
  sources: [
    { pointer: '/employees', source: 'BROKER', by: 'broker-acme-01', at: '2026-05-04T10:02:00.000Z' },
    { pointer: '/mfa', source: 'CUSTOMER', by: 'broker-acme-01', at: '2026-05-04T09:40:00.000Z' },
    { pointer: '/turnover', source: 'CUSTOMER', by: 'broker-acme-01', at: '2026-05-04T09:40:00.000Z' },
    { pointer: '/type_of_business', source: 'CUSTOMER', by: 'broker-acme-01', at: '2026-05-04T09:40:00.000Z' },
  ],
  submitted_at: '2026-05-04T10:02:00.000Z',
  updated_at: '2026-05-04T10:02:00.000Z',
};

export const riskSchemas = {
  QuestionSetSummary: {
    type: 'object',
    required: Object.keys(questionSetFields),
    additionalProperties: false,
    properties: questionSetFields,
  },
  QuestionSet: {
    type: 'object',
    required: [...Object.keys(questionSetFields), 'schema'],
    additionalProperties: false,
    properties: {
      ...questionSetFields,
      schema: {
        type: 'object',
        description: 'The JSON Schema (draft 2020-12) with its form hints: x-label, x-help, x-order, x-unit, x-personal-data.',
      },
    },
  },
  QuestionSetList: countedListOf(ref('QuestionSetSummary'), {
    count: { description: 'How many versions (a string, as spec 2.2 has it).' },
  }),
  RiskAssessment: {
    type: 'object',
    required: ['tender_id', 'question_set', 'status', 'version', 'answers', 'sources', 'submitted_at', 'updated_at'],
    additionalProperties: false,
    properties: {
      tender_id: id,
      question_set: {
        type: 'object',
        required: ['product', 'version'],
        additionalProperties: false,
        description: 'The question set version the answers follow; frozen at the first quote request.',
        properties: { product: { type: 'string' }, version: { type: 'integer', minimum: 1 } },
      },
      status: { enum: Object.values(RiskAssessmentStatus), description: 'DRAFT: saved in part; SUBMITTED: checked against the whole set.' },
      version: { type: 'integer', minimum: 1, description: 'Counts the saves: send it back as expected_version.' },
      answers: {
        type: 'object',
        description: 'The answers by question; an insurer sees only those it requires and the specification fields.',
      },
      sources: {
        type: 'array',
        description: 'Where each top-level answer came from.',
        items: {
          type: 'object',
          required: ['pointer', 'source', 'by', 'at'],
          additionalProperties: false,
          properties: {
            pointer: { type: 'string', examples: ['/employees'] },
            source: { enum: Object.values(AnswerSource) },
            by: { ...nullable({ type: 'string' }), description: 'The API client that saved it; null for insurers.' },
            at: timestamp,
          },
        },
      },
      submitted_at: nullable(timestamp),
      updated_at: timestamp,
    },
  },
};

const security = [{ bearer: [] }];
const roles = (access: Parameters<typeof rolesFor>[0]) => rolesFor(access).join(', ');
const idParameter = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: "The tender's _id." };
const json = (schema: object, description: string, example: unknown, headers?: object) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema, example } },
});
const problemExample = (status: number, code: string, detail: string, errors?: object[]) => ({
  type: `https://tender-exchange.dev/problems/${code.toLowerCase().replace(/_/g, '-')}`,
  title: { 400: 'Bad Request', 404: 'Not Found', 409: 'Conflict' }[status],
  status,
  detail,
  code,
  ...(errors ? { errors } : {}),
});
const problemWith = (description: string, examples: Record<string, object>) => ({
  description,
  content: {
    'application/problem+json': {
      schema: ref('Problem'),
      examples: Object.fromEntries(Object.entries(examples).map(([name, value]) => [name, { value }])),
    },
  },
});

function questionSetPaths(prefix: string, access: Parameters<typeof rolesFor>[0]) {
  return {
    [prefix]: {
      get: {
        summary: 'Question sets: every published version, without their schemas',
        description: `Roles: ${roles(access)}. Newest version first within a product, products by name. Fetch a version for its schema.`,
        security,
        parameters: [
          {
            name: 'product',
            in: 'query',
            schema: { type: 'string', minLength: 1, maxLength: LIMITS.name },
            description: "Only this product's versions.",
          },
        ],
        responses: {
          '200': json(ref('QuestionSetList'), 'The versions.', { metadata: { count: '1' }, payload: [summaryExample] }),
          '400': problem('A query parameter is unknown, repeated or empty; errors[].parameter names it.'),
          ...bearerErrors,
        },
      },
    },
    [`${prefix}/{product}/{version}`]: {
      get: {
        summary: 'One question set version, with its schema',
        description:
          `Roles: ${roles(access)}. A published version never changes but for its retirement, so its ETag (the version, the schema's SHA-256, ` +
          'and `-retired` once retired) makes a poll with If-None-Match a 304 without a body.',
        security,
        parameters: [
          {
            name: 'product',
            in: 'path',
            required: true,
            schema: { type: 'string', minLength: 1, maxLength: LIMITS.name },
            description: 'The product, URL-encoded (`Cyber%20Protect`).',
          },
          {
            name: 'version',
            in: 'path',
            required: true,
            schema: { type: 'string', pattern: '^(latest|[1-9][0-9]{0,9})$' },
            description: "A version from 1, or `latest`: the product's newest version that is not retired.",
          },
          ifNoneMatch,
        ],
        responses: {
          '200': json(ref('QuestionSet'), 'The version.', { ...summaryExample, schema: schemaExample }, conditional),
          '304': { ...notModified, description: 'The version is as the ETag sent names it; no body.' },
          '400': problem('The version is neither `latest` nor a whole number from 1, or a query parameter was given.'),
          '404': problemWith('No such product or version (or, for `latest`, none that is not retired).', {
            unknown: problemExample(404, 'NOT_FOUND', 'No question set Cyber Protect version 9'),
          }),
          ...bearerErrors,
        },
      },
    },
  };
}

function assessmentPath(access: Parameters<typeof rolesFor>[0], whose: string) {
  return {
    get: {
      summary: "A tender's risk assessment",
      description: `Roles: ${roles(access)}. ${whose} A tender the client may not see, or one without an assessment, is a 404.`,
      security,
      parameters: [idParameter],
      responses: {
        '200': json(ref('RiskAssessment'), 'The assessment, as this client may see it.', assessmentExample, {
          'Cache-Control': { $ref: '#/components/headers/Cache-Control' },
        }),
        '400': problem('Query parameters are not accepted here.'),
        '404': problemWith('No tender with this id visible to the client, no assessment, or (an insurer) the tender is closed.', {
          none: problemExample(404, 'NOT_FOUND', 'Tender 7d3c9a52-4f1e-4b8a-9c6d-2e5f8a1b0c34 has no risk assessment this client may read'),
        }),
        ...bearerErrors,
      },
    },
  };
}

const WHOSE: Record<string, string> = {
  insurerApi:
    'An invited insurer sees the answers it requires (its current requirements) and the specification fields (turnover, type_of_business, website_url), with no `by`; ' +
    'none once the tender is closed or awarded to another insurer (data privacy).',
  brokerApi: "The tender's broker sees every answer with its source and who saved it.",
};

const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

export const riskPaths = {
  ...Object.fromEntries(QUESTION_SET_ROUTES.flatMap(({ prefix, access }) => Object.entries(questionSetPaths(prefix, access)))),
  ...Object.fromEntries(ASSESSMENT_ROUTES.map(({ path, access }) => [openApiPath(path), assessmentPath(access, WHOSE[access])])),
  [openApiPath(SAVE_ASSESSMENT_ROUTE.path)]: {
    put: {
      summary: "Save a tender's risk answers",
      description:
        `Roles: ${roles(SAVE_ASSESSMENT_ROUTE.access)} (a broker for its company's tenders). The REST form of the saveRiskAnswers mutation. ` +
        'The answers are saved whole: a draft (the answers given must fit the question set), or with `submit` checked against the whole set. ' +
        '`expected_version` is the version read (0 before the first save): a save over a newer one is a 409 and changes nothing. ' +
        "The answers' problems are in `errors`, each at its JSON pointer into the answers (`/employees`), the same as GraphQL's `extensions.problems`; " +
        'problems of the body itself name its field (`/expected_version`). ' +
        `The body is at most ${LIMITS.riskAnswersBodyBytes / 1024} KiB, the answers ${LIMITS.riskAnswersBytes / 1024} KiB of JSON.`,
      security,
      parameters: [idParameter],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: RiskAnswersBody,
            example: { answers: answersExample, expected_version: 2, submit: true, source: 'CUSTOMER' },
          },
        },
      },
      responses: {
        '200': json(ref('RiskAssessment'), 'The assessment as saved, its version one more.', assessmentExample),
        '400': problemWith('A malformed body, or answers that do not fit the question set; errors[].pointer names each.', {
          wrongType: problemExample(400, 'BAD_USER_INPUT', 'The answers do not fit Cyber Protect version 2', [
            { pointer: '/employees', message: 'must be integer' },
          ]),
          unknownField: problemExample(
            400,
            'BAD_USER_INPUT',
            'The save is invalid: the body must be a JSON object {"answers": {...}, "expected_version": 0, "submit": false, "source": "BROKER"}',
            [{ pointer: '/expected', message: 'unknown field' }],
          ),
        }),
        '404': problem('No tender with this id visible to the client.'),
        '409': problemWith(
          'A stale expected_version (CONFLICT; nothing saved), a tender no longer taking answers, or no question set for its product.',
          {
            stale: problemExample(409, 'CONFLICT', 'The risk assessment is at version 3, not 2: load it again and retry', [
              { pointer: '/expected_version', message: 'the current version is 3' },
            ]),
          },
        ),
        '413': problem('Body too large.'),
        '415': problem('Body is not application/json.'),
        ...bearerErrors,
      },
    },
  },
};
