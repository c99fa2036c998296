import { OptimisticLockError, UniqueConstraintViolationException } from '@mikro-orm/core';
import { DomainError } from './domain-error';

/**
 * The domain error an exception stands for, if any: domain errors themselves, and the database's word on
 * concurrent writers (a version that moved on, a unique key taken meanwhile), which are the caller's CONFLICT.
 */
export function asDomainError(error: unknown): DomainError | undefined {
  if (error instanceof DomainError) return error;
  if (error instanceof OptimisticLockError)
    return new DomainError('CONFLICT', 'The record was changed by someone else meanwhile; load it again and retry');
  if (error instanceof UniqueConstraintViolationException) return new DomainError('CONFLICT', 'This conflicts with an existing record');
  return undefined;
}

/**
 * Why `signal` aborted, as an Error to reject with. Its reasons in the gateway (a timeout, the end of a request) are
 * errors and pass as they are; anything else a caller aborted with is wrapped, with the reason as its cause.
 */
export function abortReasonOf(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(`Aborted: ${String(reason)}`, { cause: reason });
}
