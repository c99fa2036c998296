import { isDeepStrictEqual } from 'node:util';
import { labelOf, questionsOf, type Question } from './question-set-format';

/**
 * What changed from one version of a question set to the next, question by question, and whether each change is
 * breaking: whether answers valid before, or an insurer's requirement, may no longer be. Breaking: a new required
 * question (or one that became required), a removed enum value, a narrowed type or range, a new or changed pattern,
 * format or const, a removed question an insurer requires, a changed condition. Not breaking: a new optional
 * question, new labels, help, order or units, a widened range, a new enum value, a removed question no insurer
 * requires, a question that became optional.
 */
export interface QuestionSetChange {
  /** The question's answer pointer (`*` for every item of a group); empty for the set as a whole. */
  pointer: string;
  kind: string;
  breaking: boolean;
  description: string;
}

type Schema = Record<string, unknown>;

const LOWER = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'] as const;
const UPPER = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'] as const;
/** What a question's value may be, other than its annotations, its bounds and its children: changes here are conditions. */
const CONDITIONS = ['if', 'then', 'else', 'dependentRequired', 'dependentSchemas', 'allOf', 'anyOf', 'oneOf', 'not'] as const;

const typesOf = (schema: Schema): string[] | undefined => {
  const type = schema.type;
  if (type === undefined) return undefined;
  const list = (Array.isArray(type) ? type : [type]).map(String);
  // An integer is a number: widening integer to number is not narrowing.
  return list;
};

const accepts = (types: string[] | undefined, type: string) =>
  types === undefined || types.includes(type) || (type === 'integer' && types.includes('number'));

/** Whether every `before` bound still holds (a new bound, or a tighter one, narrows). */
function rangeChange(before: Schema, after: Schema): 'narrowed' | 'widened' | undefined {
  let narrowed = false;
  let widened = false;
  for (const key of LOWER) {
    const [a, b] = [before[key], after[key]];
    if (a === b) continue;
    if (typeof b === 'number' && (typeof a !== 'number' || b > a)) narrowed = true;
    else widened = true;
  }
  for (const key of UPPER) {
    const [a, b] = [before[key], after[key]];
    if (a === b) continue;
    if (typeof b === 'number' && (typeof a !== 'number' || b < a)) narrowed = true;
    else widened = true;
  }
  return narrowed ? 'narrowed' : widened ? 'widened' : undefined;
}

/**
 * Whether a question's `pointer` (`*` for a group's items) is, contains or lies inside one of `required`
 * (requirements name object-property pointers).
 */
export function requiredBy(pointer: string, required: Iterable<string>): boolean {
  const plain = pointer.replace(/\/\*(?=\/|$)/g, '');
  for (const other of required) if (plain === other || plain.startsWith(`${other}/`) || other.startsWith(`${plain}/`)) return true;
  return false;
}

export function diffQuestionSets(before: Schema, after: Schema, requiredByInsurers: ReadonlySet<string> = new Set()): QuestionSetChange[] {
  const old = new Map(questionsOf(before).map((question) => [question.pointer, question]));
  const next = new Map(questionsOf(after).map((question) => [question.pointer, question]));
  const changes: QuestionSetChange[] = [];
  const add = (pointer: string, kind: string, breaking: boolean, description: string) =>
    changes.push({ pointer, kind, breaking, description });

  for (const [pointer, question] of next) {
    if (old.has(pointer)) continue;
    const label = labelOf(question, pointer);
    if (question.required) add(pointer, 'QUESTION_ADDED', true, `"${label}" is a new required question: answers without it no longer pass`);
    else add(pointer, 'QUESTION_ADDED', false, `"${label}" is a new optional question`);
  }
  for (const [pointer, question] of old) {
    const label = labelOf(question, pointer);
    const now = next.get(pointer);
    if (!now) {
      const required = requiredBy(pointer, requiredByInsurers);
      add(
        pointer,
        'QUESTION_REMOVED',
        required,
        required ? `"${label}" is removed, and insurers require it` : `"${label}" is removed; no insurer requires it`,
      );
      continue;
    }
    compareQuestion(question, now, label, add);
  }
  // The set's own conditions (top-level if/then, dependentRequired...) and its top-level required list are compared
  // through its questions; what is left are conditions at the top.
  compareConditions('', before, after, 'the set', add);
  return changes.sort((a, b) => (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0));
}

type Add = (pointer: string, kind: string, breaking: boolean, description: string) => void;

function compareQuestion(before: Question, after: Question, label: string, add: Add): void {
  const { pointer } = before;
  const [a, b] = [before.schema, after.schema];
  if (!before.required && after.required) add(pointer, 'BECAME_REQUIRED', true, `"${label}" is now required`);
  if (before.required && !after.required) add(pointer, 'BECAME_OPTIONAL', false, `"${label}" is now optional`);
  const [typesBefore, typesAfter] = [typesOf(a), typesOf(b)];
  if (!isDeepStrictEqual(typesBefore, typesAfter)) {
    const narrowed = typesAfter !== undefined && (typesBefore ?? ['any']).some((type) => !accepts(typesAfter, type));
    add(
      pointer,
      narrowed ? 'TYPE_NARROWED' : 'TYPE_WIDENED',
      narrowed,
      `"${label}" takes ${typesAfter?.join(' or ') ?? 'any type'} (was ${typesBefore?.join(' or ') ?? 'any type'})`,
    );
  }
  if (Array.isArray(a.enum) || Array.isArray(b.enum)) {
    const [was, is] = [(a.enum as unknown[] | undefined) ?? [], (b.enum as unknown[] | undefined) ?? []];
    const removed = Array.isArray(b.enum) ? was.filter((value) => !is.some((other) => isDeepStrictEqual(other, value))) : [];
    const added = Array.isArray(a.enum) ? is.filter((value) => !was.some((other) => isDeepStrictEqual(other, value))) : [];
    if (!Array.isArray(a.enum)) add(pointer, 'ENUM_VALUE_REMOVED', true, `"${label}" now takes only ${JSON.stringify(is)}`);
    else if (!Array.isArray(b.enum)) add(pointer, 'ENUM_VALUE_ADDED', false, `"${label}" takes any value of its type now`);
    else {
      if (removed.length > 0)
        add(pointer, 'ENUM_VALUE_REMOVED', true, `"${label}" no longer takes ${removed.map((v) => JSON.stringify(v)).join(', ')}`);
      if (added.length > 0)
        add(pointer, 'ENUM_VALUE_ADDED', false, `"${label}" also takes ${added.map((v) => JSON.stringify(v)).join(', ')}`);
    }
  }
  const range = rangeChange(a, b);
  if (range)
    add(pointer, range === 'narrowed' ? 'RANGE_NARROWED' : 'RANGE_WIDENED', range === 'narrowed', `"${label}" has a ${range} range`);
  if (a.pattern !== b.pattern) {
    const breaking = b.pattern !== undefined;
    add(
      pointer,
      'PATTERN_CHANGED',
      breaking,
      b.pattern === undefined ? `"${label}" no longer has a pattern` : `"${label}" must match ${JSON.stringify(b.pattern)}`,
    );
  }
  if (a.format !== b.format) {
    add(
      pointer,
      'FORMAT_CHANGED',
      b.format !== undefined,
      b.format === undefined ? `"${label}" has no format any more` : `"${label}" must be a ${JSON.stringify(b.format)}`,
    );
  }
  if (!isDeepStrictEqual(a.const, b.const)) {
    add(
      pointer,
      'CONST_CHANGED',
      b.const !== undefined,
      b.const === undefined ? `"${label}" takes any value of its type now` : `"${label}" must be ${JSON.stringify(b.const)}`,
    );
  }
  if (before.personal !== after.personal)
    add(
      pointer,
      'PERSONAL_DATA_CHANGED',
      false,
      after.personal ? `"${label}" is now marked personal data` : `"${label}" is no longer marked personal data`,
    );
  for (const annotation of ['x-label', 'x-help', 'x-order', 'x-unit']) {
    if (!isDeepStrictEqual(a[annotation], b[annotation]))
      add(pointer, 'ANNOTATION_CHANGED', false, `"${label}" has a new ${annotation.slice(2)}`);
  }
  compareConditions(pointer, a, b, `"${label}"`, add);
}

/**
 * A changed condition (if/then/else, dependentRequired, …) may require answers that were optional: breaking. What the
 * branches declare as questions is compared with the questions; this compares the conditions whole.
 */
function compareConditions(pointer: string, before: Schema, after: Schema, what: string, add: Add): void {
  for (const key of CONDITIONS) {
    if (isDeepStrictEqual(before[key], after[key])) continue;
    const added = before[key] === undefined;
    const removed = after[key] === undefined;
    // Removing a condition, or a dependentRequired entry only, relaxes; anything else may require more.
    const relaxes = removed || (key === 'dependentRequired' && isSubsetOf(after[key], before[key]));
    add(pointer, 'CONDITION_CHANGED', !relaxes, `${what}: its ${key} ${added ? 'is new' : removed ? 'is removed' : 'changed'}`);
  }
}

/** Whether every dependency of `smaller` is in `larger` (dependentRequired maps). */
function isSubsetOf(smaller: unknown, larger: unknown): boolean {
  if (typeof smaller !== 'object' || smaller === null || typeof larger !== 'object' || larger === null) return false;
  return Object.entries(smaller).every(([key, names]) => {
    const had = (larger as Record<string, unknown>)[key];
    return Array.isArray(names) && Array.isArray(had) && names.every((name) => had.includes(name));
  });
}
