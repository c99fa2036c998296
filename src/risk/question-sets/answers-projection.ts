import { escapePointer, questionsOf } from './question-set-format';
import { isJsonObject } from '../../platform/validation/json';

/**
 * Parts of a tender's answers by JSON pointer: what one insurer may receive (only the questions it requires), which
 * required ones are missing, and which answers are personal data (the export shows them, an erasure empties them).
 */
type Answers = Record<string, unknown>;

const segmentsOf = (pointer: string): string[] =>
  pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));

/** The value at an object-property pointer, or undefined. Own properties only: `__proto__` is a key like any other. */
function valueAt(answers: Answers, segments: readonly string[]): unknown {
  let current: unknown = answers;
  for (const segment of segments) {
    if (!isJsonObject(current) || !Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}

function define(target: Answers, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Only the subtrees at these pointers (object properties, no `*`), the structure around them kept; absent ones left out. */
export function pickAnswers(answers: Answers, pointers: readonly string[]): Answers {
  const picked: Answers = {};
  for (const pointer of [...new Set(pointers)].sort()) {
    const segments = segmentsOf(pointer);
    const value = valueAt(answers, segments);
    if (value === undefined || segments.length === 0) continue;
    let target = picked;
    for (const segment of segments.slice(0, -1)) {
      if (!isJsonObject(target[segment]) || !Object.hasOwn(target, segment)) define(target, segment, {});
      target = target[segment] as Answers;
    }
    define(target, segments[segments.length - 1], structuredClone(value));
  }
  return picked;
}

/** The pointers among `pointers` with no answer (null counts as none). */
export function missingAnswers(answers: Answers, pointers: readonly string[]): string[] {
  return [...new Set(pointers)].filter((pointer) => {
    const value = valueAt(answers, segmentsOf(pointer));
    return value === undefined || value === null;
  });
}

/** Visits every answer at a question pointer (`*` for each item of a group), with its concrete pointer. */
function visit(
  answers: Answers,
  pattern: readonly string[],
  at: string,
  found: (parent: Answers, key: string, pointer: string) => void,
): void {
  const [head, ...rest] = pattern;
  if (head === undefined) return;
  if (head === '*') return;
  if (!Object.hasOwn(answers, head)) return;
  const pointer = `${at}/${escapePointer(head)}`;
  if (rest.length === 0) {
    found(answers, head, pointer);
    return;
  }
  const value = answers[head];
  if (rest[0] === '*') {
    if (!Array.isArray(value)) return;
    value.forEach((item, index) => {
      if (isJsonObject(item)) visit(item, rest.slice(1), `${pointer}/${index}`, found);
    });
  } else if (isJsonObject(value)) visit(value, rest, pointer, found);
}

const personalPatterns = (schema: Answers) =>
  questionsOf(schema)
    .filter((question) => question.personal)
    .map((question) => segmentsOf(question.pointer));

/** A copy with each personal answer replaced by `replace(value)`; the structure and the other answers stay. */
export function replacePersonalAnswers(schema: Answers, answers: Answers, replace: (value: unknown) => unknown): Answers {
  const copy = structuredClone(answers);
  for (const pattern of personalPatterns(schema)) visit(copy, pattern, '', (parent, key) => define(parent, key, replace(parent[key])));
  return copy;
}
