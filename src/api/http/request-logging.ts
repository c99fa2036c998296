import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { Level, Logger } from 'pino';
import { loggablePath } from '../../platform/http/loggable-path';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** The request's id (the caller's X-Request-Id when it is sane), set by `requestLogging`. */
export const requestIdOf = (req: Request): string | undefined => (req as Request & { id?: string }).id;

/** What else learns of an answered request (the metrics), from the same one listener. */
type AnsweredRequest = (req: Request, statusCode: number, seconds: number) => void;

/**
 * Every request gets an id, echoed back as X-Request-Id and on its log line: one line when the answer is done
 * (info; warn for a 4xx, error for a 5xx or a connection closed before the answer), in pino-http's shape
 * (`req`, `res`, `responseTime`). Not pino-http itself: it built two child loggers and serialisers for every
 * request, whether its line was written or not, about a tenth of an unchanged poll's cost (docs/benchmark.md).
 * An answered request is also handed to `answered`: one listener per request for the log and the metrics.
 */
export function requestLogging(logger: Logger, answered?: AnsweredRequest): RequestHandler {
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    (req as Request & { id?: string }).id = id;
    res.setHeader('X-Request-Id', id);
    const started = performance.now();
    res.once('close', () => {
      if (res.writableFinished) answered?.(req, res.statusCode, (performance.now() - started) / 1000);
      const level: Level = !res.writableFinished || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          req: { id, method: req.method, url: loggablePath(req.originalUrl) },
          res: { statusCode: res.statusCode },
          responseTime: Math.round(performance.now() - started),
        },
        res.writableFinished ? 'request completed' : 'request aborted',
      );
    });
    next();
  };
}
