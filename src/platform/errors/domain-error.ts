/** Stable codes of every error the gateway reports; transports map them in `error-mapping.ts`. */
export type ErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'BAD_USER_INPUT'
  | 'INVALID_TRANSITION'
  | 'CONFLICT'
  /** Cover was ordered on a quote whose validity has ended. */
  | 'QUOTE_EXPIRED'
  /** A question set publication would break what insurers or tenders rely on, and was not acknowledged. */
  | 'BREAKING_CHANGE'
  /** An insurer's required risk answers are missing (requestQuotes in STRICT mode). */
  | 'ANSWERS_MISSING'
  /** A renewal's answers carried over from last year are not yet confirmed or changed (requestQuotes). */
  | 'ANSWERS_UNCONFIRMED'
  /** The contract is finalised while pre-bind subjectivities of the ordered option are neither accepted nor waived. */
  | 'SUBJECTIVITIES_OPEN'
  | 'METHOD_NOT_ALLOWED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  /** The client sent its request too slowly (a document upload below its minimum rate). */
  | 'REQUEST_TIMEOUT'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_SERVER_ERROR';

/** One problem with one input: a REST query parameter, a JSON pointer into a body, or a GraphQL argument. */
export interface FieldProblem {
  parameter?: string;
  pointer?: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors: FieldProblem[] = [],
    /**
     * Problems inside a JSON document the caller sent (risk answers, a question set), each at its JSON pointer:
     * GraphQL shows them as `extensions.problems`, REST as the problem's `errors`.
     */
    readonly problems: { pointer: string; message: string }[] = [],
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const badInput = (message: string, errors: FieldProblem[] = []): DomainError => new DomainError('BAD_USER_INPUT', message, errors);
export const notFound = (message: string): DomainError => new DomainError('NOT_FOUND', message);
export const forbidden = (message = 'Your role may not do this'): DomainError => new DomainError('FORBIDDEN', message);
