import { setNewest } from '../../platform/bounded-map';
import { LIMITS } from '../../platform/validation/rules';
import { MAX_JSON_FIELD_DEPTH, nestsDeeperThan } from '../../platform/validation/json';
import { compileSchema, type ErrorObject, type ValidateFunction } from './question-set-ajv';
import { escapePointer } from './question-set-format';

/**
 * A tender's answers checked against a question set version: compiled once per version (a bounded cache), every
 * problem at the JSON pointer of the answer it concerns, the same on GraphQL, REST and the CLI.
 */
export interface AnswerProblem {
  pointer: string;
  message: string;
}

export interface AnswersValidator {
  /** The whole set: every required answer there. */
  submitted(answers: unknown): AnswerProblem[];
  /** A draft: the answers given must fit; missing ones may come later. */
  draft(answers: unknown): AnswerProblem[];
}

const MAX_PROBLEMS = 100;
const KEPT_VALIDATORS = 200;
const validators = new Map<string, AnswersValidator>();

/** Keywords that say an answer is missing: a draft leaves them for later. */
const MISSING = new Set(['required', 'dependentRequired']);

function problemOf(error: ErrorObject): AnswerProblem {
  const at = error.instancePath;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { pointer: `${at}/${escapePointer(String(params.missingProperty))}`, message: 'required' };
    case 'dependentRequired':
      return {
        pointer: `${at}/${escapePointer(String(params.missingProperty))}`,
        message: `required when ${String(params.property)} is answered`,
      };
    case 'additionalProperties':
      return { pointer: `${at}/${escapePointer(String(params.additionalProperty))}`, message: 'not a question of this set' };
    case 'enum':
      return {
        pointer: at,
        message: `must be one of: ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`,
      };
    case 'const':
      return { pointer: at, message: `must be ${JSON.stringify(params.allowedValue)}` };
    case 'if':
      // The branch's own errors say what is wrong; this one only says a branch failed.
      return { pointer: at, message: '' };
    default:
      return { pointer: at, message: error.message ?? 'invalid' };
  }
}

function problemsOf(validate: ValidateFunction, answers: unknown, skipMissing: boolean): AnswerProblem[] {
  if (validate(answers)) return [];
  const seen = new Set<string>();
  const problems: AnswerProblem[] = [];
  for (const error of validate.errors ?? []) {
    if (skipMissing && MISSING.has(error.keyword)) continue;
    const problem = problemOf(error);
    const key = `${problem.pointer} ${problem.message}`;
    if (problem.message === '' || seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
    if (problems.length === MAX_PROBLEMS) break;
  }
  return problems.sort((a, b) => (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : 0));
}

/**
 * The validator of one version (`key`, e.g. `Cyber Protect@3`), compiled the first time it is asked for. A draft whose
 * only faults are missing answers passes; what remains of a failed `if` is its branch's own problem.
 */
export function answersValidator(key: string, schema: Record<string, unknown>): AnswersValidator {
  const kept = validators.get(key);
  if (kept) return kept;
  const validate = compileSchema(schema);
  const validator: AnswersValidator = {
    submitted: (answers) => problemsOf(validate, answers, false),
    draft: (answers) => problemsOf(validate, answers, true),
  };
  setNewest(validators, key, validator, KEPT_VALIDATORS);
  return validator;
}

/** What answers must be before a schema looks at them: a JSON object of bounded size and depth. */
export function answersShapeProblems(answers: unknown): AnswerProblem[] {
  if (typeof answers !== 'object' || answers === null || Array.isArray(answers)) return [{ pointer: '', message: 'must be a JSON object' }];
  // Depth first, without recursion: serialising 10 000 levels would exhaust the stack.
  if (nestsDeeperThan(answers, MAX_JSON_FIELD_DEPTH))
    return [{ pointer: '', message: `must nest at most ${MAX_JSON_FIELD_DEPTH} levels deep` }];
  if (Buffer.byteLength(JSON.stringify(answers)) > LIMITS.riskAnswersBytes)
    return [{ pointer: '', message: `must be at most ${LIMITS.riskAnswersBytes / 1024} KiB of JSON` }];
  return [];
}
