import { Type } from '@sinclair/typebox';
import { LIMITS } from '../platform/validation/rules';
import { MAX_JSON_FIELD_DEPTH } from '../platform/validation/json';
import { AnswerSource } from './assessment/risk-assessment-status';

/** GraphQL's Int: the largest version a save may name. */
const MAX_VERSION = 2_147_483_647;

/**
 * The REST body that saves a tender's risk answers (PUT /integration/v1/tenders/{id}/risk-assessment), snake_case
 * like the specification's fields. The answers' own rules are the question set's, checked by the service.
 */
export const RiskAnswersBody = Type.Object(
  {
    answers: Type.Unsafe<Record<string, unknown>>({
      type: 'object',
      description: `a JSON object of the answers by question, at most ${LIMITS.riskAnswersBytes / 1024} KiB and ${MAX_JSON_FIELD_DEPTH} levels deep`,
    }),
    expected_version: Type.Integer({
      minimum: 0,
      maximum: MAX_VERSION,
      description: "a whole number from 0: the assessment's version as read (0 before the first save)",
    }),
    submit: Type.Optional(Type.Boolean({ description: 'true or false (true: checked against the whole question set, and submitted)' })),
    // A carried-over answer is the renewal's to make, never a client's.
    source: Type.Optional(
      Type.Unsafe<AnswerSource.BROKER | AnswerSource.CUSTOMER>({
        type: 'string',
        enum: [AnswerSource.BROKER, AnswerSource.CUSTOMER],
        description: 'BROKER (the default) or CUSTOMER: whose answers these are',
      }),
    ),
    confirm: Type.Optional(
      Type.Array(Type.String({ maxLength: LIMITS.name, description: 'a JSON pointer such as /revenue' }), {
        maxItems: 1000,
        description: "pointers of carried-over answers (a renewal's, CARRIED_OVER) confirmed as they stand",
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'a JSON object {"answers": {...}, "expected_version": 0, "submit": false, "source": "BROKER", "confirm": []}',
  },
);
