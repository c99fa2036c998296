import type { ErrorRequestHandler, Response } from 'express';
import { DomainError } from '../errors/domain-error';
import { BEARER_CHALLENGE, HTTP_STATUS, toProblem } from '../errors/error-mapping';
import { logger } from '../logger';

export function sendProblem(res: Response, error: DomainError, headers: Record<string, string> = {}): void {
  const problem = toProblem(error);
  if (problem.status === 401) res.setHeader('WWW-Authenticate', BEARER_CHALLENGE);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.status(problem.status).type('application/problem+json').send(JSON.stringify(problem));
}

/** body-parser's error types, turned into the domain codes the problem mapping knows. */
function fromBodyParser(error: { type?: string; status?: number; message?: string }): DomainError | undefined {
  switch (error.type) {
    case 'entity.parse.failed':
      return new DomainError('BAD_USER_INPUT', 'The request body is not valid JSON');
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
      return undefined;
  }
}

/** Last in the chain: every error leaves as problem+json; nothing internal is shown. */
export const problemErrorHandler: ErrorRequestHandler = (error, req, res, _next) => {
  const domainError =
    error instanceof DomainError ? error : typeof error === 'object' && error !== null ? fromBodyParser(error) : undefined;
  if (res.headersSent) return;
  if (domainError) return sendProblem(res, domainError);
  logger.error({ err: error, method: req.method, path: req.path }, 'unhandled error');
  sendProblem(res, new DomainError('INTERNAL_SERVER_ERROR', 'An unexpected error occurred'));
};

export { HTTP_STATUS };
