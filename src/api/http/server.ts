import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';
import { DomainError, type ErrorCode } from '../../platform/errors/domain-error';
import { toProblem } from '../../platform/errors/error-mapping';

/** The request headers must be complete within this time, ms. */
const HEADERS_TIMEOUT_MS = 15_000;
/** The whole request (headers and body) must be received within this time, ms. */
const RECEIVE_TIMEOUT_MS = 60_000;
/**
 * How often Node looks for requests past those times. Its default, 30 s, let a slow client hold a connection up to
 * 45 s instead of 15; looking every second costs a walk over the open connections' list.
 */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** How long a request may take to arrive; the defaults are the gateway's, a test may shorten them. */
export interface ReceiveTimeouts {
  /** The request headers must be complete within this time, ms. */
  headersMs: number;
  /** The whole request (headers and body) must be received within this time, ms. */
  requestMs: number;
  /** How often Node looks for requests past those times, ms. */
  checkIntervalMs: number;
}

const RECEIVE_TIMEOUTS: ReceiveTimeouts = {
  headersMs: HEADERS_TIMEOUT_MS,
  requestMs: RECEIVE_TIMEOUT_MS,
  checkIntervalMs: TIMEOUT_CHECK_INTERVAL_MS,
};

/**
 * Node's parser refuses some requests before express sees them; they still get a problem+json answer (status,
 * title, code, detail). A request too slow to arrive is a 503 like one too slow to answer (REQUEST_TIMEOUT_MS).
 */
function parserErrors(timeouts: ReceiveTimeouts): Record<string, { status: number; title?: string; code: ErrorCode; detail: string }> {
  return {
    HPE_HEADER_OVERFLOW: {
      status: 431,
      title: 'Request Header Fields Too Large',
      code: 'BAD_USER_INPUT',
      detail: 'The request headers are too large',
    },
    ERR_HTTP_REQUEST_TIMEOUT: {
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      detail: `The request was not received in time (headers within ${timeouts.headersMs / 1000} s, the whole request within ${timeouts.requestMs / 1000} s)`,
    },
  };
}

function answerClientError(
  errors: ReturnType<typeof parserErrors>,
  error: Error & { code?: string },
  socket: Socket & { _httpMessage?: { headersSent: boolean } | null },
): void {
  // As Node does: when the answer in flight on this connection has begun, another cannot follow it.
  if (!socket.writable || socket._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const known = errors[error.code ?? ''];
  const problem = {
    ...toProblem(new DomainError(known?.code ?? 'BAD_USER_INPUT', known?.detail ?? 'The request is malformed')),
    status: known?.status ?? 400,
  };
  if (known?.title) problem.title = known.title;
  const body = JSON.stringify(problem);
  socket.end(
    `HTTP/1.1 ${problem.status} ${problem.title}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The HTTP server for an app: bounded header and request times, and problem answers for unparsable requests.
 * Without `app`, the caller adds it as the 'request' listener once built (main.ts: the app's shutdown drains the server).
 * `timeouts` are for tests, which need not wait the real 15 s for a slow client.
 */
export function createHttpServer(app?: Express, timeouts: ReceiveTimeouts = RECEIVE_TIMEOUTS): Server {
  const server = createServer(
    { requestTimeout: timeouts.requestMs, headersTimeout: timeouts.headersMs, connectionsCheckingInterval: timeouts.checkIntervalMs },
    app,
  );
  server.keepAliveTimeout = 5_000;
  const errors = parserErrors(timeouts);
  server.on('clientError', (error: Error & { code?: string }, socket: Socket) => answerClientError(errors, error, socket));
  return server;
}
