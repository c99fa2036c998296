import type { FormFields } from '../link-page';
import type { PageLanguage, PageTexts } from '../page-texts';
import { readTypedNumber } from '../typed-number';

/**
 * The underwriter's forms as plain HTML fields and back (docs/people.md, "The underwriter's quote page"). Every field
 * is named as `submitManualQuote`'s input names it (`options[0].premium`, `options[1].subjectivities[0].text`,
 * `validUntil`, `reason`), so the problems the domain reports land on their fields. Nothing here decides what a
 * valid quote is: numbers are read from what was typed, empty rows left out, and the rest is the domain's.
 */

/** Option rows and subjectivities per option a form holds at most (the domain allows 20 subjectivities). */
export const MAX_OPTION_ROWS = 20;
export const MAX_SUBJECTIVITY_ROWS = 20;

export interface SubjectivityRow {
  stage: string;
  text: string;
  /** A date (`YYYY-MM-DD`, the end of that day in Europe/Berlin) or empty: none. */
  dueAt: string;
}

export interface OptionRow {
  insuranceSum: string;
  deductible: string;
  premium: string;
  subjectivities: SubjectivityRow[];
}

/** What the quote form shows: as typed, never reformatted. */
export interface QuoteFormValues {
  options: OptionRow[];
  currency: string;
  validUntil: string;
}

export interface DeclineFormValues {
  decision: string;
  reason: string;
}

/** A problem on a form field (its name) or on the form as a whole (no name). */
export interface FormProblem {
  field?: string;
  message: string;
}

export const optionField = (row: number, name: keyof Omit<OptionRow, 'subjectivities'>) => `options[${row}].${name}`;
export const subjectivityField = (row: number, index: number, name: keyof SubjectivityRow) =>
  `options[${row}].subjectivities[${index}].${name}`;
export const subjectivityCountField = (row: number) => `options[${row}].subjectivityCount`;
const OPTION_COUNT_FIELD = 'optionCount';

/** An element id from a field name: letters, digits and dashes (`options[0].premium` → `f-options-0-premium`). */
export const idOf = (field: string): string => `f-${field.replace(/[^A-Za-z0-9]+/g, '-').replace(/-+$/, '')}`;

/** The first form: one option row per requested limit, each with one empty subjectivity. */
export function initialQuoteForm(limits: readonly { insuranceSum: number; deductible: number }[], currency: string): QuoteFormValues {
  return {
    options: limits.map((limit) => ({
      insuranceSum: String(limit.insuranceSum),
      deductible: String(limit.deductible),
      premium: '',
      subjectivities: [emptySubjectivity()],
    })),
    currency,
    validUntil: '',
  };
}

const count = (value: string | undefined, max: number): number | undefined => {
  if (value === undefined || !/^\d{1,2}$/.test(value)) return undefined;
  const number = Number(value);
  return number >= 1 && number <= max ? number : undefined;
};

/** The form's values from its fields, or undefined when it is not this page's form (a count out of range, a field it never shows). */
export function readQuoteForm(fields: FormFields): QuoteFormValues | undefined {
  const rows = count(fields[OPTION_COUNT_FIELD], MAX_OPTION_ROWS);
  if (rows === undefined) return undefined;
  const known = new Set(['_csrf', '_action', OPTION_COUNT_FIELD, 'currency', 'validUntil']);
  const options: OptionRow[] = [];
  for (let row = 0; row < rows; row++) {
    const subjectivities = count(fields[subjectivityCountField(row)], MAX_SUBJECTIVITY_ROWS);
    if (subjectivities === undefined) return undefined;
    known.add(subjectivityCountField(row));
    const option: OptionRow = { insuranceSum: '', deductible: '', premium: '', subjectivities: [] };
    for (const name of ['insuranceSum', 'deductible', 'premium'] as const) {
      option[name] = fields[optionField(row, name)] ?? '';
      known.add(optionField(row, name));
    }
    for (let index = 0; index < subjectivities; index++) {
      option.subjectivities.push({
        stage: fields[subjectivityField(row, index, 'stage')] ?? '',
        text: fields[subjectivityField(row, index, 'text')] ?? '',
        dueAt: fields[subjectivityField(row, index, 'dueAt')] ?? '',
      });
      for (const name of ['stage', 'text', 'dueAt'] as const) known.add(subjectivityField(row, index, name));
    }
    options.push(option);
  }
  if (Object.keys(fields).some((name) => !known.has(name))) return undefined;
  return { options, currency: fields.currency ?? '', validUntil: fields.validUntil ?? '' };
}

/** Only the fields a form shows: anything else (a quote request id, another form's fields) refuses it whole. */
export function onlyFields(fields: FormFields, names: readonly string[]): boolean {
  const known = new Set(['_csrf', '_action', ...names]);
  return Object.keys(fields).every((name) => known.has(name));
}

const isBlank = (row: OptionRow) => row.premium.trim() === '' && row.subjectivities.every((subjectivity) => subjectivity.text === '');

/** A new subjectivity row: before binding, no text, no due date. */
export const emptySubjectivity = (): SubjectivityRow => ({ stage: 'PRE_BIND', text: '', dueAt: '' });

export interface ManualOptionInput {
  insuranceSum: number;
  deductible: number;
  premium: number;
  subjectivities: { text: string; stage: string; dueAt?: string }[];
}

/**
 * The options `submitManualQuote` takes from the form's rows: blank rows (no premium, no subjectivity) and empty
 * subjectivities left out; `rows[i]` and `subjectivities[i][j]` say which form row each sent one came from, to place
 * the domain's problems. A number that cannot be read is a problem of its field, and nothing is sent.
 */
export function optionsOf(
  form: QuoteFormValues,
  lang: PageLanguage,
  t: PageTexts,
): { options: ManualOptionInput[]; rows: number[]; subjectivities: number[][]; problems: FormProblem[] } {
  const problems: FormProblem[] = [];
  const options: ManualOptionInput[] = [];
  const rows: number[] = [];
  const subjectivities: number[][] = [];
  form.options.forEach((row, index) => {
    if (isBlank(row)) return;
    const numbers = {} as Record<'insuranceSum' | 'deductible' | 'premium', number>;
    for (const name of ['insuranceSum', 'deductible', 'premium'] as const) {
      const number = readTypedNumber(row[name], lang);
      if (number === undefined)
        problems.push({ field: optionField(index, name), message: row[name].trim() === '' ? t.problems.required : t.problems.notNumber });
      else numbers[name] = number;
    }
    const kept = row.subjectivities.flatMap((subjectivity, position) => (subjectivity.text === '' ? [] : [position]));
    options.push({
      ...numbers,
      subjectivities: kept.map((position) => {
        const { text, stage, dueAt } = row.subjectivities[position];
        return { text, stage, ...(dueAt.trim() === '' ? {} : { dueAt: dueAt.trim() }) };
      }),
    });
    rows.push(index);
    subjectivities.push(kept);
  });
  return { options, rows, subjectivities, problems };
}

/**
 * A domain problem's parameter (`options[2].subjectivities[0].text`, as `submitManualQuote` names it) as the field of
 * the form row it came from; undefined for a problem of the whole answer.
 */
export function fieldOfProblem(parameter: string, sent: { rows: number[]; subjectivities: number[][] }): string | undefined {
  if (parameter === 'validUntil' || parameter === 'currency' || parameter === 'reason' || parameter === 'decision') return parameter;
  const match = /^options\[(\d+)\](?:\.(insuranceSum|deductible|premium)|\.subjectivities(?:\[(\d+)\](?:\.(text|stage|dueAt))?)?)?$/.exec(
    parameter,
  );
  if (!match) return undefined;
  const option = Number(match[1]);
  const row = sent.rows[option];
  if (row === undefined) return undefined;
  if (match[2]) return optionField(row, match[2] as 'premium');
  if (match[3] !== undefined) {
    const position = sent.subjectivities[option]?.[Number(match[3])];
    return position === undefined
      ? optionField(row, 'premium')
      : subjectivityField(row, position, (match[4] as 'text' | 'stage' | 'dueAt' | undefined) ?? 'text');
  }
  // The option as a whole (a limit not requested, an option twice): its insurance sum.
  return optionField(row, 'insuranceSum');
}
