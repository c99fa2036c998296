import type { OperationDefinitionNode } from 'graphql';
import { inSpan } from '../../platform/telemetry/trace-context';

/**
 * graphql-jit's executions in a span as the GraphQL instrumentation names graphql-js's (`query RestTenderList`,
 * with the operation's type and name): the instrumentation hooks graphql-js's `execute`, which compiled documents
 * never call. Resolvers' SQL spans are its children.
 */
export function inExecutionSpan<T>(operation: OperationDefinitionNode, work: () => Promise<T>): Promise<T> {
  const name = operation.name?.value;
  const attributes = {
    'graphql.operation.type': operation.operation,
    'graphql.jit': true,
    ...(name ? { 'graphql.operation.name': name } : {}),
  };
  return inSpan(name ? `${operation.operation} ${name}` : operation.operation, attributes, work);
}
