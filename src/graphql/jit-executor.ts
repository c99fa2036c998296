import type { ApolloServerOptionsWithGateway } from '@apollo/server';
import { GraphQLError, execute, getVariableValues, visit, type DocumentNode, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { RequestContext } from './context';

type Gateway = NonNullable<ApolloServerOptionsWithGateway<RequestContext>['gateway']>;
type Executor = Awaited<ReturnType<Gateway['load']>>['executor'];

/** A document must be seen this often before it is compiled: one-off queries are not worth compiling. */
const COMPILE_AFTER = 2;

/**
 * Apollo Server executes with graphql-js and has no executor option; its gateway interface is the documented way
 * to bring one. This "gateway" serves our own schema and executes operations that clients send repeatedly (the
 * frontends' and the REST-shaped queries) with graphql-jit, compiled once per document. One-off operations and
 * introspection run through graphql-js. Variables are coerced by graphql-js first, so their errors are the same
 * either way. Parsing, validation, limits and plugins stay Apollo's.
 */
export function jitGateway(schema: GraphQLSchema): Gateway {
  /** Per document: how often it was seen, and its compiled operations by name (null: not compilable). */
  const documents = new WeakMap<DocumentNode, { uses: number; compiled: Map<string, CompiledQuery | null> }>();

  function compiledFor(document: DocumentNode, operation: OperationDefinitionNode, operationName: string | null): CompiledQuery | null {
    const entry = documents.get(document) ?? { uses: 0, compiled: new Map<string, CompiledQuery | null>() };
    documents.set(document, entry);
    if (++entry.uses < COMPILE_AFTER) return null;
    const key = operationName ?? '';
    if (!entry.compiled.has(key)) {
      const candidate = operation.operation === 'subscription' || usesIntrospection(document) ? undefined : compileQuery(schema, document, operationName ?? undefined);
      entry.compiled.set(key, candidate && isCompiledQuery(candidate) ? candidate : null);
    }
    return entry.compiled.get(key)!;
  }

  const executor: Executor = async ({ document, operationName, operation, request, context }) => {
    const variables = request.variables ?? {};
    const jit = compiledFor(document, operation, operationName);
    if (jit) {
      const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
      if (coerced.errors) return { errors: coerced.errors };
      const result = (await jit.query(undefined, context, variables)) as ExecutionResult<Record<string, unknown>>;
      // graphql-jit's errors have a read-only message, which plugins (graphql-armor) rewrite: plain copies.
      return result.errors ? { ...result, errors: result.errors.map(writableError) } : result;
    }
    return (await execute({ schema, document, contextValue: context, variableValues: variables, operationName })) as ExecutionResult<Record<string, unknown>>;
  };

  return {
    async load() {
      return { schema, executor };
    },
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => undefined;
    },
    async stop() {},
  };
}

function writableError(error: GraphQLError): GraphQLError {
  const copy = new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
  // graphql-jit gives locations without the nodes they come from.
  return copy.locations || !error.locations ? copy : Object.assign(copy, { locations: error.locations });
}

export function usesIntrospection(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value === '__schema' || node.name.value === '__type') found = true;
    },
  });
  return found;
}
