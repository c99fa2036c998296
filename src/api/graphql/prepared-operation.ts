import { getOperationAST, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { DomainError } from '../../platform/errors/domain-error';
import { asDomainError } from '../../platform/errors/normalize';
import type { RequestContext } from '../../access';
import { inExecutionSpan } from './execution-span';

interface PreparedOperation {
  run(context: RequestContext, variables: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/**
 * Parses, validates and compiles a fixed operation once, at start-up; a broken operation stops the app from
 * starting. graphql-jit turns it into one function over the same schema and resolvers, which spares the
 * generic executor's per-field work on every request (about a fifth of a page of 50).
 * `run` returns the data or throws the domain error that a resolver raised.
 */
export function prepareOperation(schema: GraphQLSchema, source: string): PreparedOperation {
  const document: DocumentNode = parse(source);
  const errors = validate(schema, document);
  if (errors.length > 0) throw new Error(`Invalid prepared operation: ${errors.map((e) => e.message).join('; ')}`);
  const compiled = compileQuery(schema, document);
  if (!isCompiledQuery(compiled))
    throw new Error(`Prepared operation does not compile: ${compiled.errors?.map((e) => e.message).join('; ')}`);
  const operation = getOperationAST(document)!;
  return {
    async run(context, variables) {
      const result = await inExecutionSpan(operation, async () => compiled.query(undefined, context, variables));
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
