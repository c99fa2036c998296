/** Pieces every part of the OpenAPI document uses. */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: ref('Problem') } } });
export const nullable = (schema: object) => ({ oneOf: [schema, { type: 'null' }] });
export const timestamp = { type: 'string', format: 'date-time', examples: ['2026-05-04T09:15:00.000Z'] };

export const bearerErrors = {
  '401': problem('No, malformed, expired, revoked or foreign token (WWW-Authenticate: Bearer error="invalid_token").'),
  '403': problem("The token's role may not use this path."),
  '429': problem('Too many requests from this client (Retry-After).'),
  '431': problem('The request headers are too large (for example a huge token).'),
};
