import express, { type Request, type RequestHandler } from 'express';
import { DomainError } from '../errors/domain-error';
import { sendProblem } from './problem';

const hasBody = (req: Request) =>
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') || req.headers['transfer-encoding'] !== undefined;

/** A body is only accepted as JSON; anything else is refused (415) before it is read. */
const requireJson: RequestHandler = (req, _res, next) => {
  if (hasBody(req) && !req.is('application/json')) {
    throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be application/json');
  }
  next();
};

/** Strict JSON bodies up to `limit`; parse errors and oversize bodies become problems in the error handler. */
export function jsonBody(limit: string): RequestHandler[] {
  return [requireJson, express.json({ limit, strict: true, type: 'application/json' })];
}

export const methodNotAllowed =
  (allow: string, detail = `Use ${allow}`): RequestHandler =>
  (_req, res) =>
    sendProblem(res, new DomainError('METHOD_NOT_ALLOWED', detail), { Allow: allow });
