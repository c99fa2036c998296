import { RE2JS } from 're2js';
import { nestsDeeperThan, isJsonObject } from '../../platform/validation/json';
import { LIMITS, textProblem } from '../../platform/validation/rules';
import { ANNOTATIONS, QUESTION_SET_DIALECT, escapePointer } from './question-set-format';
import { FORMATS, compileSchema } from './question-set-ajv';

/**
 * Whether a document may be published as a question set, and if not, why, each problem at its pointer into the
 * schema. Refused: more than LIMITS.questionSetBytes, deeper than MAX_DEPTH, more than MAX_NODES schemas; another
 * dialect; any `$ref` but a local `#/$defs/<name>`, and cycles among them (no remote schemas, no recursion bombs);
 * dynamic references and ids; patterns RE2 cannot run (every pattern then runs in linear time); unknown formats,
 * keywords and annotations; a question without its German and English label; an object of questions open to other
 * answers, a repeatable group without a bound; the name `__proto__`.
 */
export interface SchemaProblem {
  pointer: string;
  message: string;
}

const MAX_DEPTH = 48;
const MAX_NODES = 5000;
const MAX_PROBLEMS = 100;
const MAX_GROUP_ITEMS = 1000;
const REFUSED_KEYWORDS = ['$id', '$anchor', '$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$recursiveAnchor', '$vocabulary'];
/** Keywords whose value is a schema, a list of schemas, or a map of them. */
const ONE = [
  'items',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
  'not',
];
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
/** Where a property is a test, not a question: no label needed. */
const TESTS = new Set(['if', 'not', 'propertyNames', 'contains']);

type Schema = Record<string, unknown>;

/**
 * Where the document names `__proto__`, as a key or a string (a required question, say). Ajv reads such a property
 * through the object's prototype: a required `__proto__` always looks answered, an answer to it never fits. No
 * question takes the name.
 */
function protoNames(value: unknown, pointer: string, add: (pointer: string, message: string) => void): void {
  if (value === '__proto__') add(pointer, 'must not name "__proto__": no question takes that name');
  else if (Array.isArray(value)) value.forEach((item, index) => protoNames(item, `${pointer}/${index}`, add));
  else if (isJsonObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      const at = `${pointer}/${escapePointer(key)}`;
      if (key === '__proto__') add(at, 'is not allowed: no question takes the name "__proto__"');
      else protoNames(item, at, add);
    }
  }
}

/** A pattern RE2 runs and JavaScript reads alike (Ajv checks a pattern's syntax the JavaScript way). */
function patternProblem(pattern: unknown): string | undefined {
  if (typeof pattern !== 'string') return 'must be a string';
  try {
    RE2JS.compile(pattern);
    new RegExp(pattern, 'u');
    return undefined;
  } catch (error) {
    return `cannot run in linear time (RE2 syntax; no backreferences or lookaround): ${(error as Error).message.slice(0, 200)}`;
  }
}

/** One line of text by the gateway's one text rule (no control or bidi characters), 1 to `max` characters. */
const isText = (value: unknown, max: number): boolean =>
  typeof value === 'string' && value.trim().length > 0 && value.length <= max && textProblem(value, 'line') === undefined;

function annotationProblem(key: string, value: unknown): string | undefined {
  switch (key) {
    case 'x-label':
    case 'x-help': {
      const max = key === 'x-label' ? 200 : 2000;
      return isJsonObject(value) &&
        isText(value.de, max) &&
        isText(value.en, max) &&
        Object.keys(value).every((k) => k === 'de' || k === 'en')
        ? undefined
        : `must be { "de": ..., "en": ... }, each one line of text up to ${max} characters`;
    }
    case 'x-order':
      return Number.isSafeInteger(value) ? undefined : 'must be an integer';
    case 'x-unit':
      return isText(value, 32) ? undefined : 'must be a short text (EUR, employees, m²)';
    case 'x-personal-data':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    default:
      return `is not an annotation of question sets (${ANNOTATIONS.join(', ')})`;
  }
}

/** The `$defs` each def names through `$ref`, for the cycle check. */
function refsIn(value: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const item of value) refsIn(item, into);
  else if (isJsonObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') {
        const match = /^#\/\$defs\/([^/]+)$/.exec(item);
        if (match) into.add(match[1]);
      } else refsIn(item, into);
    }
  }
  return into;
}

function cycleIn(defs: Schema): string | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const visit = (name: string, path: string[]): string | undefined => {
    if (state.get(name) === 'done') return undefined;
    if (state.get(name) === 'open') return [...path, name].join(' → ');
    state.set(name, 'open');
    for (const next of refsIn(defs[name], new Set())) {
      if (!Object.hasOwn(defs, next)) continue;
      const cycle = visit(next, [...path, name]);
      if (cycle) return cycle;
    }
    state.set(name, 'done');
    return undefined;
  };
  for (const name of Object.keys(defs)) {
    const cycle = visit(name, []);
    if (cycle) return cycle;
  }
  return undefined;
}

export function questionSetProblems(schema: unknown): SchemaProblem[] {
  if (!isJsonObject(schema)) return [{ pointer: '', message: 'must be a JSON object (a JSON Schema)' }];
  // Depth first, without recursion: serialising 10 000 levels would exhaust the stack.
  if (nestsDeeperThan(schema, MAX_DEPTH)) return [{ pointer: '', message: `must nest at most ${MAX_DEPTH} levels deep` }];
  const text = JSON.stringify(schema);
  if (Buffer.byteLength(text) > LIMITS.questionSetBytes)
    return [{ pointer: '', message: `must be at most ${LIMITS.questionSetBytes / 1024} KiB of JSON` }];
  const problems: SchemaProblem[] = [];
  const add = (pointer: string, message: string) => problems.length < MAX_PROBLEMS && problems.push({ pointer, message });
  if (schema.$schema !== undefined && schema.$schema !== QUESTION_SET_DIALECT) add('/$schema', `must be ${QUESTION_SET_DIALECT}`);
  if (schema.type !== 'object') add('/type', 'must be "object": the answers are one JSON object');
  protoNames(schema, '', add);
  const defs = isJsonObject(schema.$defs) ? schema.$defs : {};
  let nodes = 0;

  const check = (node: unknown, pointer: string, question: boolean): void => {
    if (!isJsonObject(node)) return; // Ajv's compile says what a non-schema is
    if (++nodes > MAX_NODES) return;
    for (const [key, value] of Object.entries(node)) {
      const at = `${pointer}/${escapePointer(key)}`;
      if (REFUSED_KEYWORDS.includes(key)) add(at, 'is not allowed: a question set is one document, referring only to its own $defs');
      else if (key === '$schema' && pointer !== '') add(at, 'only at the top');
      else if (key === '$ref') {
        const match = typeof value === 'string' ? /^#\/\$defs\/([^/]+)$/.exec(value) : null;
        if (!match) add(at, 'must refer to this document\'s own "#/$defs/<name>"; nothing is loaded from elsewhere');
        else if (!Object.hasOwn(defs, match[1].replace(/~1/g, '/').replace(/~0/g, '~'))) add(at, `names no definition: ${String(value)}`);
      } else if (key === 'pattern') {
        const problem = patternProblem(value);
        if (problem) add(at, problem);
      } else if (key === 'format') {
        if (!(FORMATS as readonly unknown[]).includes(value)) add(at, `is not a known format (${FORMATS.join(', ')})`);
      } else if (key.startsWith('x-')) {
        const problem = annotationProblem(key, value);
        if (problem) add(at, problem);
      }
    }
    if (question && !node.$ref && node['x-label'] === undefined) add(pointer, 'a question needs its "x-label" ({ "de": ..., "en": ... })');
    // Closed objects and bounded groups: an answer to no question is refused, and no group grows without end.
    if (!testContext(pointer)) {
      if (node.type === 'object' && node.additionalProperties !== false)
        add(pointer, 'an object of questions needs "additionalProperties": false');
      if (node.type === 'array' && !(typeof node.maxItems === 'number' && node.maxItems <= MAX_GROUP_ITEMS))
        add(pointer, `a repeatable group needs a "maxItems" of at most ${MAX_GROUP_ITEMS}`);
    }
    for (const key of ONE) if (key in node) check(node[key], `${pointer}/${key}`, false);
    for (const key of LIST) {
      const list = node[key];
      if (Array.isArray(list)) list.forEach((item, index) => check(item, `${pointer}/${key}/${index}`, false));
    }
    for (const key of MAP) {
      const map = node[key];
      if (!isJsonObject(map)) continue;
      for (const [name, item] of Object.entries(map)) {
        const at = `${pointer}/${key}/${escapePointer(name)}`;
        if (key === 'patternProperties') {
          const problem = patternProblem(name);
          if (problem) add(at, problem);
        }
        check(item, at, key === 'properties' && !testContext(pointer));
      }
    }
  };
  check(schema, '', false);
  if (nodes > MAX_NODES) add('', `must hold at most ${MAX_NODES} schemas`);
  const cycle = cycleIn(defs);
  if (cycle) add('/$defs', `must not refer to themselves, directly or through others: ${cycle}`);
  if (problems.length > 0) return problems;
  try {
    compileSchema(schema);
  } catch (error) {
    add('', `is not a valid JSON Schema (2020-12): ${(error as Error).message.slice(0, 500)}`);
  }
  return problems;
}

/** Whether a pointer into the schema lies inside a test (`if`, `not`, …), whose properties are conditions, not questions. */
function testContext(pointer: string): boolean {
  return pointer.split('/').some((segment) => TESTS.has(segment));
}
