import { Type } from '@sinclair/typebox';
import { LIMITS, Timestamp, nullable, optionalText } from '../platform/validation/rules';
import { TIMESTAMP_RULE } from '../platform/validation/timestamp';

/** The field rules of auth: a token request and a new API client. */

/** The REST token request (snake_case, as the specification writes it). */
export const TokenRequestBody = Type.Object(
  {
    // The examples are the demo credentials (README), what Swagger UI's form offers instead of "string".
    app_id: Type.String({
      minLength: 1,
      maxLength: LIMITS.clientCredential,
      description: `required, 1 to ${LIMITS.clientCredential} characters`,
      examples: ['demo-broker'],
    }),
    secret: Type.String({
      minLength: 1,
      maxLength: LIMITS.clientCredential,
      description: `required, 1 to ${LIMITS.clientCredential} characters`,
      examples: ['demo-broker-secret'],
    }),
    expiry: Type.Optional({
      ...Timestamp,
      description: `${TIMESTAMP_RULE}; default: the configured default lifetime`,
      examples: ['2030-01-01T12:00:00.000Z'],
    }),
  },
  { additionalProperties: false, description: 'a JSON object with app_id, secret and optionally expiry' },
);

export const CreateApiClientRules = Type.Object({
  description: nullable(optionalText(LIMITS.name)),
});
