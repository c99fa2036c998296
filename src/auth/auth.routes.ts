import express, { Router, type RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { Config } from '../config';
import { DomainError, badInput } from '../errors/domain-error';
import { sendProblem } from '../http/problem';
import type { ContextDeps } from '../http/request-context';

const methodNotAllowed: RequestHandler = (_req, res) =>
  sendProblem(res, new DomainError('METHOD_NOT_ALLOWED', 'Use POST'), { Allow: 'POST' });

const hasBody = (req: express.Request) =>
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') ||
  req.headers['transfer-encoding'] !== undefined;

/** A body is only accepted as JSON; anything else is refused before it is read. */
const requireJson: RequestHandler = (req, _res, next) => {
  if (hasBody(req) && !req.is('application/json')) {
    throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be application/json');
  }
  next();
};

/** `{auth_url}` = `{base_url}/auth` (DESIGN 1): token issue and revocation, spec 4.3 and 5. */
export function authRoutes(deps: ContextDeps, config: Config): Router {
  const router = Router();
  const json = express.json({ limit: '8kb', strict: true, type: 'application/json' });

  // Brute-force limiting: only failed attempts count, per client address.
  const limitFailures = rateLimit({
    windowMs: config.authRateWindow * 1000,
    limit: config.authRateLimit,
    skipSuccessfulRequests: true,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    handler: (req, res) => {
      const resetTime = (req as express.Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const retryAfter = Math.max(1, Math.ceil(((resetTime?.getTime() ?? Date.now()) - Date.now()) / 1000));
      sendProblem(res, new DomainError('RATE_LIMITED', 'Too many failed token requests; try again later'), {
        'Retry-After': String(retryAfter),
      });
    },
  });

  router.post('/auth/token', limitFailures, requireJson, json, async (req, res) => {
    const request = deps.tokens.parseRequest(req.body);
    const issued = await deps.tokens.issue(deps.orm.em.fork(), request);
    res.setHeader('Cache-Control', 'no-store');
    res.json(issued);
  });
  router.all('/auth/token', methodNotAllowed);

  router.post('/auth/token-revoke', requireJson, json, async (req, res) => {
    const body: unknown = req.body;
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body) || Object.keys(body).length > 0)) {
      throw badInput('The revocation request takes an empty body; the bearer token is the one revoked');
    }
    // Signature and lifetime are checked, revocation is not: revoking twice answers 200 again.
    const viewer = deps.tokens.verifyHeader(req.headers.authorization);
    await deps.tokens.revoke(deps.orm.em.fork(), viewer);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ status: 'revoked' });
  });
  router.all('/auth/token-revoke', methodNotAllowed);
  return router;
}
