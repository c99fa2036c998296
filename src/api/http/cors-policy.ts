import cors from 'cors';
import type { RequestHandler } from 'express';
import type { Config } from '../../platform/config';

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
