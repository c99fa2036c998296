import type { RequestHandler, Response } from 'express';
import type { Config } from '../../platform/config';
import { DomainError } from '../../platform/errors/domain-error';
import { sendProblem } from './problem';

/**
 * A request that takes longer than the configured time gets a 503 instead of keeping the client waiting. Paths under
 * `exempt` (the document upload, whose admission holds it to a deadline sized to its document) are left to their routes.
 */
export function requestTimeout(config: Config, exempt: readonly string[] = []): RequestHandler {
  return (req, res, next) => {
    if (exempt.some((prefix) => req.path.startsWith(`${prefix}/`))) return next();
    answerWithin(res, config.requestTimeoutMs);
    next();
  };
}

/** A 503 if no answer was sent within `ms`. */
function answerWithin(res: Response, ms: number): void {
  const timer = setTimeout(() => {
    if (!res.headersSent) sendProblem(res, new DomainError('SERVICE_UNAVAILABLE', 'The request took too long'));
  }, ms);
  // 'close' follows the answer's 'finish' as well as a connection lost before it.
  res.once('close', () => clearTimeout(timer));
}
