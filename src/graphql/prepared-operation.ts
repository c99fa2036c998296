import { execute, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import { DomainError } from '../errors/domain-error';
import { asDomainError } from '../errors/normalize';
import type { RequestContext } from './context';

export interface PreparedOperation {
  run(context: RequestContext, variables: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/**
 * Parses and validates a fixed operation once, at start-up; a broken operation stops the app from starting.
 * `run` returns the data or throws the domain error that a resolver raised.
 */
export function prepareOperation(schema: GraphQLSchema, source: string): PreparedOperation {
  const document: DocumentNode = parse(source);
  const errors = validate(schema, document);
  if (errors.length > 0) throw new Error(`Invalid prepared operation: ${errors.map((e) => e.message).join('; ')}`);
  return {
    async run(context, variables) {
      const result = await execute({ schema, document, contextValue: context, variableValues: variables });
      const [first] = result.errors ?? [];
      if (first) {
        const domainError = asDomainError(first.originalError);
        if (domainError) throw domainError;
        // No path: the variables were refused before execution; the shim let a caller's bad value through.
        if (!first.path) throw new DomainError('BAD_USER_INPUT', first.message);
        throw first.originalError ?? first;
      }
      return result.data as Record<string, unknown>;
    },
  };
}
