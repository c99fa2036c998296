import type { MikroORM } from '@mikro-orm/core';
import type { Request, RequestHandler, Response } from 'express';
import { rateLimit, type Store } from 'express-rate-limit';
import type { Config } from '../../platform/config';
import { DomainError } from '../../platform/errors/domain-error';
import { DatabaseRateLimitStore } from '../../platform/http/rate-limit-store';
import { addressKey } from './client-address';
import { sendProblem } from './problem';
import { requestScopeOf } from './request-context';

/**
 * The client a request counts against: the API client of a token that verifies and is not revoked, of an
 * existing, enabled client (the same check the route makes, done once), or else the address. A forged `sub` is
 * never a key (it could name any client, or a new one per request), and a leaked token that was revoked drains
 * its address's bucket, not the real client's.
 */
async function rateLimitKey(req: Request, res: Response): Promise<string> {
  if (req.headers.authorization) {
    try {
      return `client:${(await requestScopeOf(res).authenticatedViewer()).appId}`;
    } catch {
      // counted against the address below
    }
  }
  return `address:${addressKey(req)}`;
}

/** The 429 of every rate limit: a RATE_LIMITED problem with Retry-After until the window resets. */
export function rateLimitedAnswer(detail: string): RequestHandler {
  return (req, res) => {
    const resetTime = (req as typeof req & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
    const retryAfter = Math.max(1, Math.ceil(((resetTime?.getTime() ?? Date.now()) - Date.now()) / 1000));
    sendProblem(res, new DomainError('RATE_LIMITED', detail), { 'Retry-After': String(retryAfter) });
  };
}

/**
 * Counters every instance shares (DESIGN: several instances on one database), unless configured per process.
 * `syncMs`: how long hits may be tallied here before the database hears of them (0: every hit at once).
 */
export function rateLimitStore(config: Config, orm: MikroORM, prefix: string, syncMs = 0): Store | undefined {
  return config.rateLimitStore === 'database' ? new DatabaseRateLimitStore(orm, prefix, { syncMs }) : undefined;
}

/**
 * Per-client request rate, with RateLimit and RateLimit-Policy headers (the IETF httpapi draft's current syntax,
 * draft 8 and later: `"client"; r=<remaining>; t=<seconds>`) and Retry-After on 429. Every request counts, so
 * its hits are sent to the database in batches (RATE_LIMIT_SYNC_MS); failed logins are counted one by one.
 */
export function clientRateLimit(config: Config, orm: MikroORM): RequestHandler {
  return rateLimit({
    store: rateLimitStore(config, orm, 'client-rate:', config.rateLimitSyncMs),
    windowMs: 60_000,
    limit: config.rateLimitPerMinute,
    standardHeaders: 'draft-8',
    identifier: 'client',
    legacyHeaders: false,
    keyGenerator: rateLimitKey,
    handler: rateLimitedAnswer(`More than ${config.rateLimitPerMinute} requests per minute from this client`),
  });
}

/**
 * Per-address rate of the explorer's and Swagger UI's pages and files (and the contract they load), a budget of their
 * own: they come before authentication, and one client pulling the 3.4 MB GraphiQL bundle in a loop took the
 * bandwidth and CPU other clients needed. A page load takes about ten requests, later loads fewer (cached files).
 */
export function staticAssetRateLimit(config: Config, orm: MikroORM): RequestHandler {
  return rateLimit({
    store: rateLimitStore(config, orm, 'static-rate:', config.rateLimitSyncMs),
    windowMs: 60_000,
    limit: config.staticRateLimitPerMinute,
    standardHeaders: 'draft-8',
    identifier: 'explorer',
    legacyHeaders: false,
    keyGenerator: (req) => `address:${addressKey(req)}`,
    handler: rateLimitedAnswer(
      `More than ${config.staticRateLimitPerMinute} requests per minute for the explorer and documentation from this address`,
    ),
  });
}
