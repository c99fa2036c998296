import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIPv4 } from 'node:net';
import cors from 'cors';
import type { Request, RequestHandler } from 'express';
import type { MikroORM } from '@mikro-orm/core';
import { ipKeyGenerator, rateLimit, type Store } from 'express-rate-limit';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import type { Config } from '../config';
import { DomainError } from '../errors/domain-error';
import { unmapIpv4 } from './ip-address';
import { sendProblem } from './problem';
import { authenticatedViewer, type ContextDeps } from './request-context';
import { DatabaseRateLimitStore } from './rate-limit-store';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Every request gets an id (the caller's X-Request-Id when it is sane), echoed back and on every log line. */
export function requestLogging(logger: Logger): RequestHandler {
  return pinoHttp<IncomingMessage, ServerResponse, never>({
    logger: logger as Logger<never>,
    genReqId: (req, res) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
    serializers: {
      req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
}

/** Security headers. JSON needs no scripts: the strictest policy, relaxed where pages are served (/docs, /graphql). */
export const securityHeaders: RequestHandler = helmet({
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
});

/** CORS for the configured browser origins only; no origins configured means no CORS headers. */
export function corsPolicy(config: Config): RequestHandler {
  return cors({
    origin: (origin, callback) => callback(null, origin !== undefined && config.corsOrigins.includes(origin)),
    methods: ['GET', 'HEAD', 'POST'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', 'Apollo-Require-Preflight'],
    exposedHeaders: ['X-Request-Id', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'WWW-Authenticate'],
    maxAge: 600,
  });
}

/**
 * The address a request counts against: IPv4 by the whole address (an IPv4-mapped IPv6 address is IPv4), IPv6 by
 * its /64, the block one subscriber usually holds. Behind a proxy the address is the client's only with TRUST_PROXY.
 */
export function addressKey(req: Request): string {
  const ip = unmapIpv4(req.ip ?? req.socket.remoteAddress ?? 'unknown');
  return isIPv4(ip) ? ip : ipKeyGenerator(ip, 64);
}

/**
 * The client a request counts against: the API client of a token that verifies and is not revoked, of an
 * existing, enabled client (the same check the route makes, done once), or else the address. A forged `sub` is
 * never a key (it could name any client, or a new one per request), and a leaked token that was revoked drains
 * its address's bucket, not the real client's.
 */
async function rateLimitKey(deps: ContextDeps, req: Request): Promise<string> {
  if (req.headers.authorization) {
    try {
      return `client:${(await authenticatedViewer(deps, req)).appId}`;
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

/** Counters every instance shares (DESIGN: several instances on one database), unless configured per process. */
export function rateLimitStore(config: Config, orm: MikroORM, prefix: string): Store | undefined {
  return config.rateLimitStore === 'database' ? new DatabaseRateLimitStore(orm, prefix) : undefined;
}

/** Per-client request rate, with RateLimit headers (IETF draft 7) and Retry-After on 429. */
export function clientRateLimit(config: Config, deps: ContextDeps): RequestHandler {
  return rateLimit({
    store: rateLimitStore(config, deps.orm, 'client-rate:'),
    windowMs: 60_000,
    limit: config.rateLimitPerMinute,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    keyGenerator: (req) => rateLimitKey(deps, req),
    handler: rateLimitedAnswer(`More than ${config.rateLimitPerMinute} requests per minute from this client`),
  });
}

/** A request that takes longer than the configured time gets a 503 instead of keeping the client waiting. */
export function requestTimeout(config: Config): RequestHandler {
  return (_req, res, next) => {
    const timer = setTimeout(() => {
      if (!res.headersSent) sendProblem(res, new DomainError('SERVICE_UNAVAILABLE', 'The request took too long'));
    }, config.requestTimeoutMs);
    res.once('close', () => clearTimeout(timer));
    res.once('finish', () => clearTimeout(timer));
    next();
  };
}
