import type { ApolloServerOptionsWithGateway } from '@apollo/server';
import {
  GraphQLError,
  Kind,
  astFromValue,
  execute,
  getVariableValues,
  isInputObjectType,
  isInputType,
  isListType,
  isNonNullType,
  typeFromAST,
  valueFromASTUntyped,
  visit,
  type DocumentNode,
  type ExecutionResult,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { inExecutionSpan } from './execution-span';
import { setNewest } from '../../platform/bounded-map';
import type { RequestContext } from '../../access';

type Gateway = NonNullable<ApolloServerOptionsWithGateway<RequestContext>['gateway']>;
type Executor = Awaited<ReturnType<Gateway['load']>>['executor'];

/**
 * What compiled client documents may keep. A compiled document is generated code whose size grows with the fields
 * it selects once its fragments are spread, not with its text: a short document can spread one fragment under 50
 * aliases. So the budget counts fields, and the least recently used documents make room. Measured on the heap
 * (docs/graphql.md): 64 documents of a page's 39 fields 3.5 MiB, eight of 494 fields 2.0 MiB.
 */
export const JIT_LIMITS = {
  /** A document is compiled at its second use: a one-off document is not worth it. */
  compileAtUse: 2,
  /** Documents selecting more fields than this always run through graphql-js. */
  maxFields: 500,
  /** The fields of all compiled documents kept. */
  totalFields: 4000,
  /** Compiled documents kept, however small. */
  documents: 64,
  /** Documents whose uses are counted (by their hash only). */
  counted: 1000,
} as const;

interface Kept {
  query: CompiledQuery | null;
  fields: number;
  /** Variables inside list and input-object literals, which graphql-jit reads differently when absent or null. */
  nestedVariables: readonly string[];
}

interface JitGateway extends Gateway {
  /** What the compiled documents keep now. */
  kept(): { documents: number; fields: number };
}

/**
 * Apollo Server executes with graphql-js and has no executor option; its gateway interface is the documented way
 * to bring one. This "gateway" serves our own schema and runs the documents clients send again and again (the
 * frontends' queries) with graphql-jit, as the REST routes run theirs (prepared-operation.ts): graphql-js completes a
 * page of 50 tenders field by field, about a fifth of its CPU (docs/benchmark.md). One-off documents, large ones and
 * introspection run through graphql-js. Parsing, validation, limits and plugins stay Apollo's; variables are coerced
 * by graphql-js first, so their errors are the same either way. What graphql-jit would answer differently runs
 * through graphql-js too: documents using names plain objects have (usesPrototypeNames), and requests leaving a
 * variable inside a literal absent or null.
 */
export function jitGateway(schema: GraphQLSchema): JitGateway {
  const uses = new Map<string, number>();
  const compiled = new Map<string, Kept>();
  let keptFields = 0;

  function keep(key: string, entry: Kept): void {
    while (compiled.size > 0 && (compiled.size >= JIT_LIMITS.documents || keptFields + entry.fields > JIT_LIMITS.totalFields)) {
      const [oldest, evicted] = compiled.entries().next().value!;
      compiled.delete(oldest);
      keptFields -= evicted.fields;
    }
    compiled.set(key, entry);
    keptFields += entry.fields;
  }

  function compiledFor(key: string, document: DocumentNode, operation: OperationDefinitionNode): Kept | null {
    const known = compiled.get(key);
    if (known) {
      compiled.delete(key);
      compiled.set(key, known);
      return known;
    }
    const seen = (uses.get(key) ?? 0) + 1;
    setNewest(uses, key, seen, JIT_LIMITS.counted);
    if (seen < JIT_LIMITS.compileAtUse) return null;
    uses.delete(key);
    const fields = selectedFields(document, operation, JIT_LIMITS.maxFields);
    if (fields > JIT_LIMITS.maxFields || usesIntrospection(document) || usesPrototypeNames(document)) {
      keep(key, { query: null, fields: 0, nestedVariables: [] });
      return null;
    }
    const candidate = compileQuery(schema, document, operation.name?.value);
    const query = isCompiledQuery(candidate) ? candidate : null;
    const entry = { query, fields: query ? fields : 0, nestedVariables: query ? variablesInLiterals(document) : [] };
    keep(key, entry);
    return entry;
  }

  const executor: Executor = async ({ document, queryHash, operationName, operation, request, context }) => {
    const variables = request.variables ?? {};
    // Subscriptions never get here: the request policy refuses them once the operation is resolved (apollo.ts).
    // Keyed by the operation's place in the document, not its name: a name is client text of any length.
    const jit = compiledFor(`${queryHash}:${document.definitions.indexOf(operation)}`, document, operation);
    if (jit?.query) {
      const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
      if (coerced.errors) return { errors: coerced.errors };
      // graphql-jit puts null where a variable inside a literal is absent (graphql-js takes the field's default or
      // leaves it out) and passes a null on where graphql-js refuses it: such a request runs through graphql-js.
      if (jit.nestedVariables.every((name) => coerced.coerced[name] != null)) {
        const query = jit.query;
        const result = (await inExecutionSpan(operation, async () =>
          query.query(undefined, context, withInputDefaults(schema, operation, variables)),
        )) as ExecutionResult<Record<string, unknown>>;
        // graphql-jit's errors have a read-only message, which plugins (graphql-armor) rewrite: plain copies.
        return result.errors ? { ...result, errors: result.errors.map(writableError) } : result;
      }
    }
    return (await execute({ schema, document, contextValue: context, variableValues: variables, operationName })) as ExecutionResult<
      Record<string, unknown>
    >;
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
    kept: () => ({ documents: compiled.size, fields: keptFields }),
  };
}

/**
 * graphql-jit coerces the variables once more after graphql-js, and refuses an input object that leaves out a
 * non-null field with a default (`TenderSort.direction`, `PersonInput.salutation`), which graphql-js fills in. So the
 * defaults are written into the variables first, as a client could have sent them; a value the client sent is kept.
 */
function withInputDefaults(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): Record<string, unknown> {
  let filled = variables;
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type);
    // A variable left out takes its definition's default, which graphql-jit coerces as graphql-js does.
    if (!isInputType(type) || !(name in variables)) continue;
    const value = fillDefaults(type, variables[name]);
    if (value !== variables[name]) filled = { ...filled, [name]: value };
  }
  return filled;
}

/** The value with the defaults of the input objects in it filled in; the same value when nothing was missing. */
function fillDefaults(type: GraphQLInputType, value: unknown): unknown {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (value === null || value === undefined) return value;
  if (isListType(inner)) {
    if (!Array.isArray(value)) return fillDefaults(inner.ofType, value);
    const items = value.map((item) => fillDefaults(inner.ofType, item));
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  if (!isInputObjectType(inner) || typeof value !== 'object' || Array.isArray(value)) return value;
  const object = value as Record<string, unknown>;
  let filled = object;
  for (const field of Object.values(inner.getFields())) {
    const given = object[field.name];
    const next =
      given === undefined
        ? field.defaultValue === undefined
          ? undefined
          : valueFromASTUntyped(astFromValue(field.defaultValue, field.type)!)
        : fillDefaults(field.type, given);
    if (next === given) continue;
    if (filled === object) filled = { ...object };
    filled[field.name] = next;
  }
  return filled;
}

/**
 * The fields an operation selects with its fragments spread, counted up to `limit` (then `limit + 1`): what its
 * compiled code grows with. Apollo has validated the document, so its fragments exist and do not cycle.
 */
function selectedFields(document: DocumentNode, operation: OperationDefinitionNode, limit: number): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  let count = 0;
  const walk = (set: SelectionSetNode | undefined): void => {
    for (const selection of set?.selections ?? []) {
      if (count > limit) return;
      if (selection.kind === Kind.FIELD) {
        count += 1;
        walk(selection.selectionSet);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) walk(selection.selectionSet);
      else walk(fragments.get(selection.name.value)?.selectionSet);
    }
  };
  walk(operation.selectionSet);
  return count;
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

/**
 * Whether the document uses a name that plain objects already have (`__proto__`, `constructor`, `toString`, ...) as
 * a variable, an alias or a key of an object literal. graphql-jit keeps variables, answers and literals in plain
 * objects and object literals: such a variable is read from Object.prototype when absent and lost when named
 * `__proto__`, such an alias or key is dropped. graphql-js keeps them in objects without a prototype. graphql-jit
 * cannot be handed graphql-js's coerced variables instead (0.8.9 always coerces them again itself), so these
 * documents always run through graphql-js. The schema's own names (fields, arguments, types) are none of these.
 */
function usesPrototypeNames(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Name(node) {
      if (node.value in Object.prototype) found = true;
    },
  });
  return found;
}

/** The variables a document uses inside list and input-object literals (`sort: [{ field: $f, direction: $d }]`). */
function variablesInLiterals(document: DocumentNode): string[] {
  const names = new Set<string>();
  visit(document, {
    ObjectField(node) {
      if (node.value.kind === Kind.VARIABLE) names.add(node.value.name.value);
    },
    ListValue(node) {
      for (const item of node.values) if (item.kind === Kind.VARIABLE) names.add(item.name.value);
    },
  });
  return [...names];
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
