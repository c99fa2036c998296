import type { MikroORM } from '@mikro-orm/core';
import { Router } from 'express';
import type { TokenService } from '../../auth';
import { rateLimit } from 'express-rate-limit';
import type { Config } from '../../platform/config';
import { EmptyBody, LIMITS } from '../../platform/validation/rules';
import { parseBody } from '../../platform/validation/validate';
import { addressKey } from '../http/client-address';
import { rateLimitedAnswer, rateLimitStore } from '../http/rate-limits';
import { jsonBody, methodNotAllowed } from '../http/json-body';
import { requestScopeOf } from '../http/request-context';

/** The app_id a token request names, as far as it can be one (the token request's own bound). */
const appIdOf = (body: unknown): string => {
  const appId = (body as { app_id?: unknown } | undefined)?.app_id;
  return typeof appId === 'string' && appId.length <= LIMITS.clientCredential ? appId : '';
};

/** `{auth_url}` = `{base_url}/auth` (DESIGN 1): token issue and revocation, spec 4.3 and 5. */
export function authRoutes(deps: { orm: MikroORM; tokens: TokenService }, config: Config): Router {
  const router = Router();
  const json = jsonBody(LIMITS.tokenBodyBytes);

  // Brute-force limiting: only failed attempts count, per address and app_id, so that failures from one place
  // lock out neither every client there nor the attacked client where it really logs in from.
  const limitFailures = rateLimit({
    store: rateLimitStore(config, deps.orm, 'token-failures:'),
    windowMs: config.authRateWindow * 1000,
    limit: config.authRateLimit,
    skipSuccessfulRequests: true,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    keyGenerator: (req) => `${addressKey(req)}|${appIdOf(req.body)}`,
    handler: rateLimitedAnswer('Too many failed token requests; try again later'),
  });

  router.post('/auth/token', ...json, limitFailures, async (req, res) => {
    const request = deps.tokens.parseRequest(req.body);
    const issued = await deps.tokens.issue(requestScopeOf(res).em, request);
    res.setHeader('Cache-Control', 'no-store');
    res.json(issued);
  });
  router.all('/auth/token', methodNotAllowed('POST'));

  router.post('/auth/token-revoke', ...json, async (req, res) => {
    if (req.body !== undefined) parseBody(EmptyBody, req.body, 'The revocation request (the bearer token is the one revoked)');
    // Signature and lifetime are checked, revocation is not: revoking twice answers 200 again.
    const viewer = requestScopeOf(res).verifiedViewer();
    await deps.tokens.revoke(requestScopeOf(res).em, viewer);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ status: 'revoked' });
  });
  router.all('/auth/token-revoke', methodNotAllowed('POST'));
  return router;
}
