import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import { DomainError, type ErrorCode } from '../../platform/errors/domain-error';
import { toProblem } from '../../platform/errors/error-mapping';

/** Node's parser refuses some requests before express sees them; they still get a problem+json answer. */
const PARSER_ERRORS: Record<string, { status: number; code: ErrorCode; detail: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, code: 'BAD_USER_INPUT', detail: 'The request headers are too large' },
};

function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) return;
  const known = PARSER_ERRORS[error.code ?? ''];
  const problem = { ...toProblem(new DomainError(known?.code ?? 'BAD_USER_INPUT', known?.detail ?? 'The request is malformed')), status: known?.status ?? 400 };
  if (known) problem.title = 'Request Header Fields Too Large';
  const body = JSON.stringify(problem);
  socket.end(
    `HTTP/1.1 ${problem.status} ${problem.title}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The HTTP server for an app: bounded header and request times, and problem answers for unparsable requests.
 * Without `app`, the caller adds it as the 'request' listener once built (main.ts: the app's shutdown drains the server).
 */
export function createHttpServer(app?: Express): Server {
  const server = createServer({ requestTimeout: 60_000, headersTimeout: 15_000 }, app);
  server.keepAliveTimeout = 5_000;
  server.on('clientError', answerClientError);
  return server;
}
