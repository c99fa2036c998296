import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from 'cors';
import type { Request, RequestHandler } from 'express';
import type { MikroORM } from '@mikro-orm/core';
import { ipKeyGenerator, rateLimit, type Store } from 'express-rate-limit';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import type { TokenService } from '../auth/token.service';
import type { Config } from '../config';
import { DomainError } from '../errors/domain-error';
import { sendProblem } from './problem';
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

/** The token's subject, unverified: only to pick the client's rate-limit bucket. */
/**
 * The client a request counts against: the subject of a token whose signature verifies (no database look-up), or
 * else the address. An unverified `sub` is never a key: a forged token could name any client, or an endless
 * supply of new ones, each a counter of its own.
 */
function rateLimitKey(tokens: TokenService, req: Request): string {
  try {
    return `client:${tokens.verifyHeader(req.headers.authorization).appId}`;
  } catch {
    return `address:${ipKeyGenerator(req.ip ?? 'unknown')}`;
  }
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
export function clientRateLimit(config: Config, orm: MikroORM, tokens: TokenService): RequestHandler {
  return rateLimit({
    store: rateLimitStore(config, orm, 'client-rate:'),
    windowMs: 60_000,
    limit: config.rateLimitPerMinute,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    keyGenerator: (req) => rateLimitKey(tokens, req),
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
