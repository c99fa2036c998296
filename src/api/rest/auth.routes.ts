import type { MikroORM } from '@mikro-orm/core';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { ROLES } from '../../access';
import type { TokenService } from '../../auth';
import { rateLimit } from 'express-rate-limit';
import type { Config } from '../../platform/config';
import { EmptyBody, LIMITS } from '../../platform/validation/rules';
import { parseBody } from '../../platform/validation/validate';
import { addressKey } from '../http/client-address';
import { rateLimitedAnswer, rateLimitStore } from '../http/rate-limits';
import { jsonBody, methodNotAllowed, parseJson } from '../http/json-body';
import { DomainError } from '../../platform/errors/domain-error';
import { requestScopeOf } from '../http/request-context';
import {
  OAuthError,
  type OAuthErrorCode,
  asOAuthError,
  clientCredentials,
  formParameter,
  namedClientId,
  parseForm,
  requireForm,
  sendOAuthError,
  sendsBody,
  sendsForm,
} from './oauth';

export const OAUTH_METADATA_PATH = '/.well-known/oauth-authorization-server';
/**
 * The OAuth 2.0 token endpoint: the form alone, so that the spec's `/auth/token` is described with one request type
 * (JSON) and generated clients send it. `/auth/token` still takes the form, for clients configured with it before.
 */
export const OAUTH_TOKEN_PATH = '/auth/oauth/token';
/** The RFC 7009 revocation's answer: a JSON body (strict clients refuse an empty 200), the spec's revocation response. */
const REVOKED = { status: 'revoked' } as const;

/** The spec's JSON token request, or the OAuth form of it (docs/oauth.md), each read by its own parser. */
function tokenBody(): RequestHandler {
  const json = parseJson(LIMITS.tokenBodyBytes);
  return (req, res, next) => {
    if (sendsForm(req)) return parseForm(req, res, next);
    if (sendsBody(req) && !req.is('application/json')) {
      throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'The token request must be application/json, or a form (OAuth 2.0: docs/oauth.md)');
    }
    json(req, res, next);
  };
}

/** RFC 6749 4.4: `grant_type=client_credentials`, the client's credentials, an optional `scope`. */
async function oauthToken(deps: { tokens: TokenService }, req: Request, res: Response): Promise<void> {
  const grantType = formParameter(req, 'grant_type');
  if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is required');
  if (grantType !== 'client_credentials') throw new OAuthError('unsupported_grant_type', 'Only grant_type=client_credentials is supported');
  const { appId, secret } = clientCredentials(req);
  const scope = formParameter(req, 'scope');
  if (scope !== undefined && !/^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/.test(scope)) {
    throw new OAuthError('invalid_scope', 'scope must be space-separated scope names (RFC 6749 3.3)');
  }
  const issued = await deps.tokens.issue(requestScopeOf(res).em, { app_id: appId, secret }, scope);
  res.setHeader('Cache-Control', 'no-store');
  res.json(issued);
}

/** OAuth routes answer their refusals as RFC 6749 5.2 errors; the rest (413, 429, ...) stay problems. */
const oauthErrors =
  (handle: (req: Request, res: Response) => Promise<void>, forbidden: OAuthErrorCode): RequestHandler =>
  async (req, res) => {
    try {
      await handle(req, res);
    } catch (error) {
      const oauthError = asOAuthError(error, forbidden);
      if (!oauthError) throw error;
      sendOAuthError(res, oauthError);
    }
  };

/** RFC 8414 metadata; the issuer is the origin the client called (behind TRUST_PROXY, the one it named). */
function authorizationServerMetadata(req: Request) {
  const issuer = `${req.protocol}://${req.get('host')}`;
  const authMethods = ['client_secret_basic', 'client_secret_post'];
  return {
    issuer,
    token_endpoint: `${issuer}${OAUTH_TOKEN_PATH}`,
    token_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint: `${issuer}/auth/revoke`,
    revocation_endpoint_auth_methods_supported: authMethods,
    grant_types_supported: ['client_credentials'],
    response_types_supported: [],
    scopes_supported: ROLES,
    service_documentation: `${issuer}/docs`,
  };
}

/**
 * `{auth_url}` = `{base_url}/auth` (DESIGN 1): token issue and revocation, spec 4.3 and 5, and their OAuth 2.0
 * forms beside them (docs/oauth.md).
 */
export function authRoutes(deps: { orm: MikroORM; tokens: TokenService }, config: Config): Router {
  const router = Router();
  const json = jsonBody(LIMITS.tokenBodyBytes);

  // Brute-force limiting: only failed attempts count, per address and client id (app_id, client_id or the Basic
  // user), so that failures from one place lock out neither every client there nor the attacked client where it
  // really logs in from.
  const limitFailures = rateLimit({
    store: rateLimitStore(config, deps.orm, 'token-failures:'),
    windowMs: config.authRateWindow * 1000,
    limit: config.authRateLimit,
    skipSuccessfulRequests: true,
    standardHeaders: 'draft-8',
    identifier: 'failed-logins',
    legacyHeaders: false,
    keyGenerator: (req) => `${addressKey(req)}|${namedClientId(req)}`,
    handler: rateLimitedAnswer('Too many failed token requests; try again later'),
  });

  const formToken = oauthErrors((req, res) => oauthToken(deps, req, res), 'invalid_scope');
  router.post('/auth/token', tokenBody(), limitFailures, async (req, res, next) => {
    if (sendsForm(req)) return formToken(req, res, next);
    const request = deps.tokens.parseRequest(req.body);
    const issued = await deps.tokens.issue(requestScopeOf(res).em, request);
    res.setHeader('Cache-Control', 'no-store');
    res.json(issued);
  });
  router.all('/auth/token', methodNotAllowed('POST'));

  router.post(OAUTH_TOKEN_PATH, requireForm, parseForm, limitFailures, formToken);
  router.all(OAUTH_TOKEN_PATH, methodNotAllowed('POST'));

  router.post('/auth/token-revoke', ...json, async (req, res) => {
    if (req.body !== undefined) parseBody(EmptyBody, req.body, 'The revocation request (the bearer token is the one revoked)');
    // Signature and lifetime are checked, revocation is not: revoking twice answers 200 again.
    const viewer = requestScopeOf(res).verifiedViewer();
    await deps.tokens.revoke(requestScopeOf(res).em, viewer);
    res.setHeader('Cache-Control', 'no-store');
    res.json(REVOKED);
  });
  router.all('/auth/token-revoke', methodNotAllowed('POST'));

  // RFC 7009: the client names the token (`token`; `token_type_hint` is not needed, there is one kind) and
  // authenticates as for a token. 200, also for a token that is invalid or expired already (nothing to revoke).
  router.post(
    '/auth/revoke',
    requireForm,
    parseForm,
    limitFailures,
    oauthErrors(async (req, res) => {
      const token = formParameter(req, 'token');
      if (token === undefined) throw new OAuthError('invalid_request', 'token is required');
      const { appId, secret } = clientCredentials(req);
      const { em } = requestScopeOf(res);
      await deps.tokens.revokeIssuedTo(em, await deps.tokens.authenticateClient(em, appId, secret), token);
      res.setHeader('Cache-Control', 'no-store');
      res.json(REVOKED);
    }, 'unauthorized_client'),
  );
  router.all('/auth/revoke', methodNotAllowed('POST'));

  router.get(OAUTH_METADATA_PATH, (req, res) => {
    // The issuer is the origin the client called (Host, or X-Forwarded-Host behind TRUST_PROXY): cached per host only.
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.vary('Host').vary('X-Forwarded-Host');
    res.json(authorizationServerMetadata(req));
  });
  router.all(OAUTH_METADATA_PATH, methodNotAllowed('GET, HEAD'));
  return router;
}
