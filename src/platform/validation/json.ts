import { GraphQLScalarType, type ValueNode } from 'graphql';
import { GraphQLJSONObject } from 'graphql-scalars';

/** Whether a parsed JSON value is an object (not an array, not null). */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Free-form JSON fields (risk information) nest at most this deep; real risk data nests a few levels. */
export const MAX_JSON_FIELD_DEPTH = 16;
/** Request bodies nest at most this deep: room for a GraphQL request around the deepest JSON field. */
export const MAX_BODY_DEPTH = 64;

/** Whether a parsed JSON value nests deeper than `max` objects and arrays; walked without recursion. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(current)) pending.push([child, depth + 1]);
  }
  return false;
}

/**
 * The nesting depth of raw JSON text, from its brackets outside strings, so that absurd nesting is refused
 * before anything recursive (the parser, the ORM's copies) sees it.
 */
export function rawJsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

function bounded<T>(value: T, max = MAX_JSON_FIELD_DEPTH): T {
  if (nestsDeeperThan(value, max)) throw new TypeError(`JSON nested deeper than ${max} levels`);
  return value;
}

/** JSON Schema documents (question sets) nest deeper than data: each question level is two JSON levels or more. */
const MAX_JSON_SCHEMA_DEPTH = 48;

/** graphql-scalars' JSONObject, refusing input nested deeper than MAX_JSON_FIELD_DEPTH (a BAD_USER_INPUT, not a 500). */
export const JSONObjectScalar = new GraphQLScalarType({
  ...GraphQLJSONObject.toConfig(),
  description: `${GraphQLJSONObject.description} At most ${MAX_JSON_FIELD_DEPTH} levels deep.`,
  parseValue: (value: unknown) => bounded(GraphQLJSONObject.parseValue(value)),
  parseLiteral: (ast: ValueNode, variables?: Record<string, unknown> | null) => bounded(GraphQLJSONObject.parseLiteral(ast, variables)),
});

/** A JSON Schema document (a question set), as JSONObject but nested up to MAX_JSON_SCHEMA_DEPTH. */
export const JSONSchemaScalar = new GraphQLScalarType({
  ...GraphQLJSONObject.toConfig(),
  name: 'JSONSchema',
  description: `A JSON Schema (draft 2020-12) document, as a JSON object. At most ${MAX_JSON_SCHEMA_DEPTH} levels deep.`,
  parseValue: (value: unknown) => bounded(GraphQLJSONObject.parseValue(value), MAX_JSON_SCHEMA_DEPTH),
  parseLiteral: (ast: ValueNode, variables?: Record<string, unknown> | null) =>
    bounded(GraphQLJSONObject.parseLiteral(ast, variables), MAX_JSON_SCHEMA_DEPTH),
});
