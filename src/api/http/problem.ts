import type { ErrorRequestHandler, Response } from 'express';
import { DomainError } from '../../platform/errors/domain-error';
import { BEARER_CHALLENGE, toProblem } from '../../platform/errors/error-mapping';
import { asDomainError } from '../../platform/errors/normalize';
import type { Logger } from 'pino';
import { loggablePath } from '../../platform/http/loggable-path';
import { requestIdOf } from './request-logging';

export function sendProblem(res: Response, error: DomainError, headers: Record<string, string> = {}): void {
  const problem = toProblem(error);
  if (problem.status === 401) res.setHeader('WWW-Authenticate', BEARER_CHALLENGE);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.status(problem.status).type('application/problem+json').send(JSON.stringify(problem));
}

/** body-parser's and express's client errors, turned into the domain codes the problem mapping knows. */
function fromHttpError(error: { type?: string; status?: number; message?: string }): DomainError | undefined {
  switch (error.type) {
    case 'entity.parse.failed':
      return new DomainError('BAD_USER_INPUT', 'The request body is not valid JSON');
    case 'entity.verify.failed':
      // Raised only by our own screening of the raw body (json-body.ts), which says what it refused.
      return new DomainError('BAD_USER_INPUT', error.message ?? 'The request body was refused');
    case 'entity.too.large':
      return new DomainError('PAYLOAD_TOO_LARGE', 'The request body is too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new DomainError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be UTF-8 encoded JSON');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new DomainError('BAD_USER_INPUT', 'The request body could not be read');
    default:
      break;
  }
  // Other http-errors from express and its middleware (static files, routing) carry their 4xx status.
  const status = error.status;
  if (status === 404) return new DomainError('NOT_FOUND', 'Not found');
  if (status === 405) return new DomainError('METHOD_NOT_ALLOWED', 'Method not allowed');
  if (status === 413) return new DomainError('PAYLOAD_TOO_LARGE', 'The request body is too large');
  if (status === 415) return new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported media type');
  if (typeof status === 'number' && status >= 400 && status < 500) return new DomainError('BAD_USER_INPUT', 'The request is malformed');
  return undefined;
}

/** Last in the chain: every error leaves as problem+json; nothing internal is shown. */
export function problemErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const domainError = asDomainError(error) ?? (typeof error === 'object' && error !== null ? fromHttpError(error) : undefined);
    if (res.headersSent) return;
    if (domainError) return sendProblem(res, domainError);
    logger.error({ err: error, req: { id: requestIdOf(req), method: req.method, path: loggablePath(req.path) } }, 'unhandled error');
    sendProblem(res, new DomainError('INTERNAL_SERVER_ERROR', 'An unexpected error occurred'));
  };
}
