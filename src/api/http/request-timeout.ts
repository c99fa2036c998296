import type { RequestHandler } from 'express';
import type { Config } from '../../platform/config';
import { DomainError } from '../../platform/errors/domain-error';
import { sendProblem } from './problem';

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
