import { DomainError } from '../../platform/errors/domain-error';

/**
 * Runs a write and reports its field problems as JSON pointers into the REST body (`/event_types`), not by the
 * names of the GraphQL arguments the operation passes them on in (`eventTypes`). `pointers` maps those names; other
 * problems, and those inside a document the caller sent (risk answers, at their own pointers), are kept as they are.
 */
export async function inBodyTerms<T>(write: Promise<T>, pointers: Readonly<Record<string, string>>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (!(error instanceof DomainError) || error.errors.length === 0) throw error;
    const errors = error.errors.map(({ parameter, pointer, message }) =>
      parameter && Object.hasOwn(pointers, parameter) ? { pointer: pointers[parameter], message } : { parameter, pointer, message },
    );
    throw new DomainError(error.code, error.message, errors, error.problems);
  }
}
