import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { RE2JS } from 're2js';
import { ANNOTATIONS } from './question-set-format';

/** The formats a question may name: each checked by ajv-formats; any other is refused at publication. */
export const FORMATS = ['date', 'date-time', 'email', 'uri', 'uuid'] as const;

/**
 * Every `pattern` runs on RE2's engine (re2js): matching takes time linear in the answer, whatever the pattern, so
 * no question set can stall the process. A pattern RE2 cannot run (backreferences, lookaround) is refused at
 * publication (question-set-check.ts).
 */
function linearTimeRegExp(pattern: string): { test: (text: string) => boolean; toString: () => string } {
  const compiled = RE2JS.compile(pattern);
  // Ajv keys the compiled patterns of a schema by their text: each must tell its own, or all would share the first.
  return { test: (text: string) => compiled.test(text), toString: () => `re2:${pattern}` };
}

/** Ajv for question sets: draft 2020-12, strict about unknown keywords, the annotations known, patterns on RE2. */
function questionSetAjv(): Ajv2020 {
  const ajv = new Ajv2020({
    strict: true,
    // A `then` requires a question its parent declares, and an `if` tests one without repeating its type.
    strictRequired: false,
    strictTypes: false,
    strictTuples: false,
    allErrors: true,
    code: { regExp: linearTimeRegExp as never },
    // No remote schemas: a `$ref` outside the document has nowhere to load from (and is refused before).
    loadSchema: undefined,
  });
  addFormats(ajv, [...FORMATS]);
  for (const keyword of ANNOTATIONS) ajv.addKeyword({ keyword });
  return ajv;
}

/**
 * Compiles a schema with an Ajv of its own: Ajv keeps what it compiled (the schema, its patterns, its code) for the
 * life of the instance, `removeSchema` or not, so a shared one would grow with every version compiled. Dropping the
 * validator (answers-validator.ts keeps a bounded number) drops its Ajv with it.
 */
export function compileSchema(schema: Record<string, unknown>): ValidateFunction {
  return questionSetAjv().compile(schema);
}

export type { ErrorObject, ValidateFunction };
