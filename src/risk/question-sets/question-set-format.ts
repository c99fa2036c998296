import { isJsonObject } from '../../platform/validation/json';

/**
 * The question set format: a JSON Schema (draft 2020-12) document whose properties are the questions, with form
 * hints as annotations (docs/risk-assessment.md). Here the walk over its questions that the diff, the requirements
 * and the privacy rules share.
 */
export const QUESTION_SET_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** The annotations a question may carry, and nothing else starting with `x-`. */
export const ANNOTATIONS = ['x-label', 'x-help', 'x-order', 'x-unit', 'x-personal-data'] as const;

type Schema = Record<string, unknown>;

export interface Question {
  /** The answer's JSON pointer through object properties; `*` for every item of a repeatable group. */
  pointer: string;
  schema: Schema;
  /** Required whenever its parent is answered (not only under a condition). */
  required: boolean;
  /** Marked `x-personal-data`, itself or a question around it. */
  personal: boolean;
  /** Declared only under a condition (`then`, `else`, `dependentSchemas`, `anyOf`, `oneOf`). */
  conditional: boolean;
}

export const escapePointer = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** The schema a `#/$defs/<name>` reference names, or the node itself. */
function resolved(root: Schema, node: Schema, seen = new Set<Schema>()): Schema {
  const ref = node.$ref;
  if (typeof ref !== 'string' || seen.has(node)) return node;
  const match = /^#\/\$defs\/([^/]+)$/.exec(ref);
  const defs = root.$defs;
  const target = match && isJsonObject(defs) ? defs[match[1].replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  seen.add(node);
  return isJsonObject(target)
    ? resolved(root, { ...target, ...Object.fromEntries(Object.entries(node).filter(([key]) => key !== '$ref')) }, seen)
    : node;
}

/**
 * Every question of a set: each property reachable through `properties`, `items` (an array of objects is a
 * repeatable group), `allOf`, the branches of `if`/`then`/`else`, `dependentSchemas`, `anyOf`/`oneOf` and local
 * `$ref`s. A question declared twice (in `properties` and again in a branch) is one question.
 */
export function questionsOf(schema: Schema): Question[] {
  const found = new Map<string, Question>();
  const walk = (node: Schema, pointer: string, conditional: boolean, personal: boolean, depth: number): void => {
    if (depth > 64) return;
    const here = resolved(schema, node);
    const required = new Set(Array.isArray(here.required) ? here.required.filter((name): name is string => typeof name === 'string') : []);
    if (isJsonObject(here.properties)) {
      for (const [name, value] of Object.entries(here.properties)) {
        if (!isJsonObject(value)) continue;
        const child = resolved(schema, value);
        const childPointer = `${pointer}/${escapePointer(name)}`;
        const childPersonal = personal || child['x-personal-data'] === true;
        const known = found.get(childPointer);
        if (known) {
          known.required ||= required.has(name) && !conditional;
          known.personal ||= childPersonal;
        } else {
          found.set(childPointer, {
            pointer: childPointer,
            schema: child,
            required: required.has(name) && !conditional,
            personal: childPersonal,
            conditional,
          });
        }
        walk(child, childPointer, conditional, childPersonal, depth + 1);
      }
    }
    if (isJsonObject(here.items)) walk(here.items, `${pointer}/*`, conditional, personal, depth + 1);
    for (const branch of Array.isArray(here.allOf) ? here.allOf : [])
      if (isJsonObject(branch)) walk(branch, pointer, conditional, personal, depth + 1);
    for (const key of ['then', 'else'] as const) if (isJsonObject(here[key])) walk(here[key], pointer, true, personal, depth + 1);
    for (const key of ['anyOf', 'oneOf'] as const) {
      for (const branch of Array.isArray(here[key]) ? (here[key] as unknown[]) : [])
        if (isJsonObject(branch)) walk(branch, pointer, true, personal, depth + 1);
    }
    if (isJsonObject(here.dependentSchemas)) {
      for (const branch of Object.values(here.dependentSchemas)) if (isJsonObject(branch)) walk(branch, pointer, true, personal, depth + 1);
    }
  };
  walk(schema, '', false, false, 0);
  return [...found.values()].sort((a, b) => (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : 0));
}

/** A question's English label, or its pointer. */
export function labelOf(question: Question | undefined, pointer: string): string {
  const label = question?.schema['x-label'];
  return isJsonObject(label) && typeof label.en === 'string' ? label.en : pointer;
}
