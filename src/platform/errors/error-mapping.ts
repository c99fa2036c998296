import type { DomainError, ErrorCode } from './domain-error';

/** The one table from domain codes to HTTP: used by REST problems and by GraphQL's HTTP status. */
export const HTTP_STATUS: Record<ErrorCode, { status: number; title: string }> = {
  UNAUTHENTICATED: { status: 401, title: 'Unauthorized' },
  FORBIDDEN: { status: 403, title: 'Forbidden' },
  NOT_FOUND: { status: 404, title: 'Not Found' },
  BAD_USER_INPUT: { status: 400, title: 'Bad Request' },
  INVALID_TRANSITION: { status: 409, title: 'Conflict' },
  CONFLICT: { status: 409, title: 'Conflict' },
  QUOTE_EXPIRED: { status: 409, title: 'Conflict' },
  BREAKING_CHANGE: { status: 409, title: 'Conflict' },
  ANSWERS_MISSING: { status: 409, title: 'Conflict' },
  ANSWERS_UNCONFIRMED: { status: 409, title: 'Conflict' },
  SUBJECTIVITIES_OPEN: { status: 409, title: 'Conflict' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method Not Allowed' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Content Too Large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported Media Type' },
  RATE_LIMITED: { status: 429, title: 'Too Many Requests' },
  REQUEST_TIMEOUT: { status: 408, title: 'Request Timeout' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service Unavailable' },
  INTERNAL_SERVER_ERROR: { status: 500, title: 'Internal Server Error' },
};

export const BEARER_CHALLENGE = 'Bearer error="invalid_token"';

interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  errors?: DomainError['errors'];
}

export function toProblem(error: DomainError): Problem {
  const { status, title } = HTTP_STATUS[error.code];
  const problem: Problem = {
    type: `https://tender-exchange.dev/problems/${error.code.toLowerCase().replace(/_/g, '-')}`,
    title,
    status,
    detail: error.message,
    code: error.code,
  };
  const errors = [...error.errors, ...error.problems];
  if (errors.length > 0) problem.errors = errors;
  return problem;
}
