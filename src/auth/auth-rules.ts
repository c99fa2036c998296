import { Type } from '@sinclair/typebox';
import { LIMITS, Timestamp, nullable, optionalText } from '../platform/validation/rules';
import { TIMESTAMP_RULE } from '../platform/validation/timestamp';

/** The field rules of auth: a token request and a new API client. */

/** The REST token request (snake_case, as the specification writes it). */
export const TokenRequestBody = Type.Object(
  {
    app_id: Type.String({
      minLength: 1,
      maxLength: LIMITS.clientCredential,
      description: `required, 1 to ${LIMITS.clientCredential} characters`,
    }),
    secret: Type.String({
      minLength: 1,
      maxLength: LIMITS.clientCredential,
      description: `required, 1 to ${LIMITS.clientCredential} characters`,
    }),
    expiry: Type.Optional({ ...Timestamp, description: `${TIMESTAMP_RULE}; default: the configured default lifetime` }),
  },
  { additionalProperties: false, description: 'a JSON object with app_id, secret and optionally expiry' },
);

export const CreateApiClientRules = Type.Object({
  description: nullable(optionalText(LIMITS.name)),
});
