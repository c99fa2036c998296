import type { Static, TSchema } from '@sinclair/typebox';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { badInput, type FieldProblem } from '../errors/domain-error';
import { parseTimestamp } from './timestamp';
import { textProblem, type TextLines } from './rules';

// Lengths count characters (code points), as PostgreSQL's varchar(n) does.
const ajv = new Ajv({ allErrors: true, verbose: true, strict: false });
// The one timestamp rule of every API (timestamp.ts), for JSON Schema's `date-time`.
ajv.addFormat('date-time', { type: 'string', validate: (value: string) => parseTimestamp(value) !== undefined });

const compiled = new WeakMap<TSchema, ValidateFunction>();

function validatorOf(schema: TSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** How a problem names its field: a JSON pointer into a REST body, or a GraphQL input path (`limits[0].deductible`). */
type FieldNaming = 'pointer' | 'parameter';

const segments = (pointer: string): string[] =>
  pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));

function named(pointerSegments: string[], naming: FieldNaming, prefix: string): string {
  if (naming === 'pointer') return pointerSegments.map((part) => `/${part.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
  return pointerSegments.reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), prefix);
}

function problemOf(error: ErrorObject): { at: string[]; message: string } {
  const at = segments(error.instancePath);
  switch (error.keyword) {
    case 'required': {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      const rule = (error.parentSchema as { properties?: Record<string, TSchema> } | undefined)?.properties?.[missing]?.description;
      return { at: [...at, missing], message: rule ? `required: ${rule}` : 'required' };
    }
    case 'additionalProperties':
      return { at: [...at, (error.params as { additionalProperty: string }).additionalProperty], message: 'unknown field' };
    case 'pattern': {
      // A text field (rules.ts `text`): the message names the character the rule refuses, and where it is.
      const lines = (error.parentSchema as { 'x-text'?: TextLines } | undefined)?.['x-text'];
      const refused = lines && typeof error.data === 'string' ? textProblem(error.data, lines) : undefined;
      if (refused) return { at, message: refused };
      const rule = (error.parentSchema as TSchema | undefined)?.description;
      return { at, message: rule ? `must be ${rule}` : (error.message ?? 'invalid') };
    }
    default: {
      const rule = (error.parentSchema as TSchema | undefined)?.description;
      return { at, message: rule ? `must be ${rule}` : (error.message ?? 'invalid') };
    }
  }
}

/** Every rule `value` breaks, one problem per field, named as the transport names fields. */
export function problemsOf(schema: TSchema, value: unknown, naming: FieldNaming = 'parameter', prefix = ''): FieldProblem[] {
  const validate = validatorOf(schema);
  if (validate(value)) return [];
  const problems = new Map<string, FieldProblem>();
  const errors = validate.errors ?? [];
  // A nullable field is a union: what its value branch says is the problem, not "is not null" or "matches no branch".
  const told = errors.filter(
    (error) => error.keyword !== 'anyOf' && !(error.keyword === 'type' && (error.parentSchema as TSchema | undefined)?.type === 'null'),
  );
  for (const error of errors) {
    if (!told.includes(error) && told.some((other) => other.instancePath.startsWith(error.instancePath))) continue;
    const { at, message } = problemOf(error);
    const name = named(at, naming, prefix);
    if (!problems.has(name)) problems.set(name, naming === 'pointer' ? { pointer: name, message } : { parameter: name, message });
  }
  return [...problems.values()];
}

/** Whether a rule refused this field already: the checks JSON Schema cannot make run only on well-formed values. */
/**
 * The one rule of a list's order: each key at most once. The positions (in `keys`) of keys named earlier already;
 * empty when the order is fine.
 */
export function repeatedKeys(keys: readonly unknown[]): Set<number> {
  return new Set(keys.flatMap((key, at) => (keys.indexOf(key) < at ? [at] : [])));
}

export const refused = (problems: readonly FieldProblem[], parameter: string): boolean =>
  problems.some((problem) => problem.parameter === parameter);

/** A REST body as its schema describes it, or BAD_USER_INPUT naming each field (JSON pointers) that breaks a rule. */
export function parseBody<T extends TSchema>(schema: T, body: unknown, what: string): Static<T> {
  const problems = problemsOf(schema, body, 'pointer');
  if (problems.length > 0) throw badInput(`${what} is invalid: the body must be ${schema.description}`, problems);
  return body;
}
