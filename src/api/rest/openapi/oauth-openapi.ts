import { ROLES } from '../../../access';
import { LIMITS } from '../../../platform/validation/rules';
import { OAUTH_METADATA_PATH } from '../auth.routes';
import { problem, ref, timestamp } from './openapi-parts';

/** The token service in the OpenAPI document: the spec's JSON token request and its OAuth 2.0 forms (docs/oauth.md). */

const credential = { type: 'string', minLength: 1, maxLength: LIMITS.clientCredential };
const FORM = 'application/x-www-form-urlencoded';

/** A refusal as a problem (JSON requests) or as an RFC 6749 5.2 error (form requests). */
const problemOrOAuthError = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: ref('Problem') }, 'application/json': { schema: ref('OAuthError') } },
});

export const oauthSecuritySchemes = {
  clientBasic: { type: 'http', scheme: 'basic', description: 'client_id:client_secret, each form-encoded first (RFC 6749 2.3.1).' },
};

export const oauthSchemas = {
  TokenResponse: {
    type: 'object',
    required: ['access_token', 'token_type', 'expires_in', 'expiry', 'scope'],
    additionalProperties: false,
    properties: {
      access_token: { type: 'string', description: 'A JWT.' },
      token_type: { const: 'Bearer', description: 'RFC 6749 5.1 (an addition to spec 2.6).' },
      expires_in: { type: 'integer', minimum: 1, description: 'Seconds until `expiry` (RFC 6749 5.1; an addition to spec 2.6).' },
      expiry: timestamp,
      scope: { enum: ROLES, description: "The client's role, its tokens' only scope (an addition to spec 2.6)." },
    },
  },
  OAuthTokenRequest: {
    type: 'object',
    description:
      'RFC 6749 4.4. The client authenticates by HTTP Basic or by client_id and client_secret here, not both. Unknown parameters are ignored.',
    required: ['grant_type'],
    properties: {
      grant_type: { const: 'client_credentials' },
      client_id: credential,
      client_secret: credential,
      scope: { enum: ROLES, description: "Optional: the client's role (its tokens' only scope); another one is invalid_scope." },
    },
  },
  OAuthRevocationRequest: {
    type: 'object',
    description: 'RFC 7009. The client authenticates as for a token. token_type_hint is accepted and not needed.',
    required: ['token'],
    properties: {
      token: { type: 'string', description: 'An access token issued to this client.' },
      token_type_hint: { type: 'string', examples: ['access_token'] },
      client_id: credential,
      client_secret: credential,
    },
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
        'Spec 4.3: a JSON body with app_id, secret and optionally expiry. Or the OAuth 2.0 client credentials grant (RFC 6749 4.4): a form ' +
        'with grant_type=client_credentials, the client credentials by HTTP Basic or in the body, optionally scope; its refusals are ' +
        'RFC 6749 5.2 errors (application/json). Failed attempts of both forms are limited per address and client id.',
      security: [{}, { clientBasic: [] }],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: ref('TokenRequest') }, [FORM]: { schema: ref('OAuthTokenRequest') } },
      },
      responses: {
        '200': { description: 'The token.', content: { 'application/json': { schema: ref('TokenResponse') } } },
        '400': problemOrOAuthError(
          'Malformed body or expiry (past, malformed, beyond the maximum); OAuth: invalid_request, unsupported_grant_type, invalid_scope.',
        ),
        '401': problemOrOAuthError('Unknown client or wrong secret; OAuth: invalid_client, with WWW-Authenticate: Basic.'),
        '413': problem('Body too large.'),
        '415': problem('Body is neither application/json nor a form.'),
        '429': problem('Too many failed attempts from this address, or too many requests (Retry-After).'),
        '431': problem('The request headers are too large.'),
      },
    },
  },
  '/auth/revoke': {
    post: {
      summary: 'Revoke a token of this client (RFC 7009)',
      description:
        'Beside the bearer-only /auth/token-revoke: the client names the token and authenticates as for a token (HTTP Basic, or ' +
        'client_id and client_secret in the form). 200 also for a token that is invalid or expired already; a valid token of another ' +
        'client is unauthorized_client. Failed attempts count like failed token requests.',
      security: [{}, { clientBasic: [] }],
      requestBody: { required: true, content: { [FORM]: { schema: ref('OAuthRevocationRequest') } } },
      responses: {
        '200': { description: 'Revoked, or nothing to revoke.' },
        '400': problemOrOAuthError('invalid_request (no token), unauthorized_client (the token is another client’s).'),
        '401': problemOrOAuthError('invalid_client, with WWW-Authenticate: Basic.'),
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
