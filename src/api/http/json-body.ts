import express, { type Request, type RequestHandler } from 'express';
import { DomainError } from '../../platform/errors/domain-error';
import { MAX_BODY_DEPTH, rawJsonDepth } from '../../platform/validation/json';
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

/**
 * Before parsing: NUL characters have no place in any field (some databases refuse them outright), and nesting
 * beyond MAX_BODY_DEPTH is refused before anything recursive meets it.
 */
function screenBody(_req: unknown, _res: unknown, raw: Buffer): void {
  const text = raw.toString('latin1');
  if (raw.includes(0) || /\\u0000/i.test(text)) throw new Error('The request body contains a NUL character');
  if (rawJsonDepth(text) > MAX_BODY_DEPTH) throw new Error(`The request body nests JSON deeper than ${MAX_BODY_DEPTH} levels`);
}

/** JSON bodies up to `limit`; parse errors, NULs, deep nesting and oversize bodies become problems in the error handler. */
export const parseJson = (limit: number): RequestHandler =>
  express.json({ limit, strict: true, type: 'application/json', verify: screenBody });

/** Strict JSON bodies for the REST routes: any other content type is refused. */
export function jsonBody(limit: number): RequestHandler[] {
  return [requireJson, parseJson(limit)];
}

/** URLs that do not decode, or decode to NUL characters, are refused before routing. */
export const refuseMalformedUrls: RequestHandler = (req, _res, next) => {
  let decoded: string;
  try {
    decoded = decodeURIComponent(req.url);
  } catch {
    throw new DomainError('BAD_USER_INPUT', 'The URL is not correctly percent-encoded');
  }
  if (decoded.includes('\0')) throw new DomainError('BAD_USER_INPUT', 'The URL contains a NUL character');
  next();
};

export const methodNotAllowed =
  (allow: string, detail = `Use ${allow}`): RequestHandler =>
  (_req, res) =>
    sendProblem(res, new DomainError('METHOD_NOT_ALLOWED', detail), { Allow: allow });
