import { ROLES } from '../../../access';
import { LIMITS } from '../../../platform/validation/rules';
import { OAUTH_METADATA_PATH, OAUTH_TOKEN_PATH } from '../auth.routes';
import { problem, ref, timestamp } from './openapi-parts';

/**
 * The token service in the OpenAPI document: the spec's JSON token request and its OAuth 2.0 forms (docs/oauth.md).
 * Each operation has one request type, so a generated client knows what to send (one with two sent none: 415). No
 * operation here has a security requirement: the client's credentials are part of the request (RFC 6749 2.3: by
 * HTTP Basic or in the form), not a scheme a generated client must configure first.
 */

const credential = { type: 'string', minLength: 1, maxLength: LIMITS.clientCredential };
const FORM = 'application/x-www-form-urlencoded';
/** The demo credentials (README), what Swagger UI's forms offer instead of "string". */
const DEMO = { client_id: 'demo-broker', client_secret: 'demo-broker-secret' };
const BASIC = 'HTTP Basic (client_secret_basic: client_id:client_secret, each form-encoded first, RFC 6749 2.3.1)';

/** An RFC 6749 5.2 error; what is not OAuth's to say (a body not read) stays a problem. */
const oauthError = (description: string) => ({
  description,
  content: { 'application/json': { schema: ref('OAuthError') }, 'application/problem+json': { schema: ref('Problem') } },
});

/** A refusal as a problem (JSON requests) or as an RFC 6749 5.2 error (form requests). */
const problemOrOAuthError = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: ref('Problem') }, 'application/json': { schema: ref('OAuthError') } },
});

export const oauthSchemas = {
  TokenResponse: {
    type: 'object',
    required: ['access_token', 'token_type', 'expires_in', 'expiry', 'scope'],
    additionalProperties: false,
    properties: {
      access_token: {
        type: 'string',
        description: 'A JWT.',
        examples: ['eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xlIjoiYnJva2VyIn0.c2lnbmF0dXJl'],
      },
      token_type: { const: 'Bearer', description: 'RFC 6749 5.1 (an addition to spec 2.6).' },
      expires_in: { type: 'integer', minimum: 1, description: 'Seconds until `expiry` (RFC 6749 5.1; an addition to spec 2.6).' },
      expiry: timestamp,
      scope: { enum: ROLES, description: "The client's role, its tokens' only scope (an addition to spec 2.6)." },
    },
  },
  OAuthTokenRequest: {
    type: 'object',
    description: `RFC 6749 4.4. The client authenticates by ${BASIC}, or by client_id and client_secret here, not both. Unknown parameters are ignored.`,
    required: ['grant_type'],
    properties: {
      grant_type: { const: 'client_credentials', examples: ['client_credentials'] },
      client_id: { ...credential, examples: [DEMO.client_id] },
      client_secret: { ...credential, examples: [DEMO.client_secret] },
      scope: {
        enum: ROLES,
        examples: ['broker'],
        description: "Optional: the client's role (its tokens' only scope); another one is invalid_scope.",
      },
    },
  },
  OAuthRevocationRequest: {
    type: 'object',
    description: `RFC 7009. The client authenticates as for a token (${BASIC}, or client_id and client_secret here). token_type_hint is accepted and not needed.`,
    required: ['token'],
    properties: {
      token: {
        type: 'string',
        description: 'An access token issued to this client.',
        examples: ['eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xlIjoiYnJva2VyIn0.c2lnbmF0dXJl'],
      },
      token_type_hint: { type: 'string', examples: ['access_token'] },
      client_id: { ...credential, examples: [DEMO.client_id] },
      client_secret: { ...credential, examples: [DEMO.client_secret] },
    },
  },
  Revoked: {
    type: 'object',
    description: "Spec 2.6's revocation response.",
    required: ['status'],
    properties: { status: { const: 'revoked' } },
  },
  OAuthError: {
    type: 'object',
    description: 'RFC 6749 5.2, for form requests.',
    required: ['error'],
    properties: {
      error: { enum: ['invalid_request', 'invalid_client', 'unsupported_grant_type', 'invalid_scope', 'unauthorized_client'] },
      error_description: { type: 'string' },
    },
  },
  OAuthServerMetadata: {
    type: 'object',
    description: 'RFC 8414. The issuer is the origin the client called.',
    required: ['issuer', 'token_endpoint', 'grant_types_supported', 'response_types_supported'],
    properties: {
      issuer: { type: 'string', format: 'uri' },
      token_endpoint: { type: 'string', format: 'uri' },
      token_endpoint_auth_methods_supported: { type: 'array', items: { type: 'string' } },
      revocation_endpoint: { type: 'string', format: 'uri' },
      revocation_endpoint_auth_methods_supported: { type: 'array', items: { type: 'string' } },
      grant_types_supported: { type: 'array', items: { const: 'client_credentials' } },
      response_types_supported: {
        type: 'array',
        items: { type: 'string' },
        maxItems: 0,
        description: 'Empty: there is no authorization endpoint.',
      },
      scopes_supported: { type: 'array', items: { enum: ROLES } },
      service_documentation: { type: 'string', format: 'uri' },
    },
  },
};

export const oauthPaths = {
  '/auth/token': {
    post: {
      summary: 'Issue an access token',
      description:
        'Spec 4.3: a JSON body with app_id, secret and optionally expiry. OAuth 2.0 clients use ' +
        `${OAUTH_TOKEN_PATH} (the form of RFC 6749 4.4); this path still takes that form too, for clients configured with it ` +
        'before, and answers it as there. Failed attempts are limited per address and client id.',
      security: [],
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: ref('TokenRequest'), example: { app_id: DEMO.client_id, secret: DEMO.client_secret } },
        },
      },
      responses: {
        '200': { description: 'The token.', content: { 'application/json': { schema: ref('TokenResponse') } } },
        '400': problemOrOAuthError(
          'Malformed body or expiry (past, malformed, beyond the maximum); a form: as at ' + OAUTH_TOKEN_PATH + '.',
        ),
        '401': problemOrOAuthError('Unknown client or wrong secret; a form: invalid_client, with WWW-Authenticate: Basic.'),
        '413': problem('Body too large.'),
        '415': problem(`Body is not application/json (nor the OAuth form, which belongs at ${OAUTH_TOKEN_PATH}).`),
        '429': problem('Too many failed attempts from this address, or too many requests (Retry-After).'),
        '431': problem('The request headers are too large.'),
      },
    },
  },
  [OAUTH_TOKEN_PATH]: {
    post: {
      summary: 'Issue an access token: OAuth 2.0 client credentials (RFC 6749 4.4)',
      description:
        `The token endpoint of the RFC 8414 metadata: a form with grant_type=client_credentials, the client credentials by ${BASIC} ` +
        'or in the form, optionally scope. The answer is the JSON token request’s; refusals are RFC 6749 5.2 errors. Failed attempts ' +
        'count with those of the JSON request, per address and client id.',
      security: [],
      requestBody: { required: true, content: { [FORM]: { schema: ref('OAuthTokenRequest') } } },
      responses: {
        '200': { description: 'The token.', content: { 'application/json': { schema: ref('TokenResponse') } } },
        '400': oauthError('invalid_request, unsupported_grant_type, invalid_scope.'),
        '401': oauthError('invalid_client, with WWW-Authenticate: Basic.'),
        '413': problem('Body too large.'),
        '415': problem('Body is not a form.'),
        '429': problem('Too many failed attempts from this address, or too many requests (Retry-After).'),
        '431': problem('The request headers are too large.'),
      },
    },
  },
  '/auth/revoke': {
    post: {
      summary: 'Revoke a token of this client (RFC 7009)',
      description:
        `Beside the bearer-only /auth/token-revoke: the client names the token and authenticates as for a token (${BASIC}, or ` +
        'client_id and client_secret in the form). 200 with the spec’s revocation response, also for a token that is invalid or ' +
        'expired already; a valid token of another client is unauthorized_client. Failed attempts count like failed token requests.',
      security: [],
      requestBody: { required: true, content: { [FORM]: { schema: ref('OAuthRevocationRequest') } } },
      responses: {
        '200': { description: 'Revoked, or nothing to revoke.', content: { 'application/json': { schema: ref('Revoked') } } },
        '400': oauthError('invalid_request (no token), unauthorized_client (the token is another client’s).'),
        '401': oauthError('invalid_client, with WWW-Authenticate: Basic.'),
        '413': problem('Body too large.'),
        '415': problem('Body is not a form.'),
        '429': problem('Too many failed attempts from this address, or too many requests (Retry-After).'),
        '431': problem('The request headers are too large.'),
      },
    },
  },
  [OAUTH_METADATA_PATH]: {
    get: {
      summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
      description:
        'The token and revocation endpoints, their authentication methods, the grant and the scopes, for OAuth clients that discover them. The issuer is the origin the client called.',
      security: [],
      responses: {
        '200': { description: 'The metadata.', content: { 'application/json': { schema: ref('OAuthServerMetadata') } } },
        '429': problem('Too many requests from this address (Retry-After).'),
      },
    },
  },
};
