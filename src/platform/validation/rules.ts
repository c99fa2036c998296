import { Type, type TSchema, type TString } from '@sinclair/typebox';
import type { FieldProblem } from '../errors/domain-error';
import { TIMESTAMP_RULE } from './timestamp';

/**
 * Every limit of the gateway, once (DESIGN 6), and the primitives each feature builds its field rules from: text,
 * ids, money, timestamps, URLs and paging, as TypeBox JSON schemas. A feature states its own inputs' schemas next to
 * its code (`<feature>-rules.ts`); the services check GraphQL inputs against them, the REST routes parse their bodies
 * with them, and the OpenAPI document shows them as its request schemas. Each schema's `description` is also the
 * message a caller gets when a value breaks it. What JSON Schema cannot say (a real currency, an allowed URL, a byte
 * size, a rule across fields) is checked by the service, next to the lookups it needs, with the limits from here.
 */
/**
 * The largest amount (insurance sum, deductible, premium, turnover) the gateway accepts, from brokers and
 * from insurers alike. Far above any real cover, and far enough below Number.MAX_VALUE that premiums with
 * tax, sums and comparisons stay finite.
 */
export const MAX_AMOUNT = 1e15;

export const LIMITS = {
  /** Names, products, free text lines. */
  name: 200,
  /** Codes and account ids of partners' records (a customer's company id, a person's account id). */
  code: 64,
  /** First and last names, cities. */
  personName: 100,
  /** House numbers, zip codes, salutations. */
  shortText: 20,
  email: 254,
  policyNumber: 100,
  /** Ids of records and of partners' references (quote request ids, acknowledgement ids). */
  reference: 200,
  /** Free-form JSON (risk information), serialised. */
  freeJsonBytes: 16 * 1024,
  /** A reason given for a status change. */
  reason: 1000,
  /** The advice of an advice export (§ 61 VVG): the customer's wishes and needs, the recommendation, its reasons. */
  adviceWishesAndNeeds: 5000,
  adviceRecommendation: 1000,
  adviceReasons: 5000,
  url: 2048,
  credential: 2048,
  /** app_id and secret of a token request. */
  clientCredential: 256,
  pageSize: 200,
  defaultPageSize: 50,
  /** An `after` cursor (base64url of a page's last order keys). */
  cursor: 1024,
  limitsPerQuoteRequest: 20,
  insurersPerQuoteRequest: 50,
  optionsPerQuote: 500,
  /**
   * Options a quote keeps at most (offers differ by limit and by subjectivities): as many as limits may be
   * requested, so a tender's quote requests and options still fit one operation's row budget.
   */
  keptOptionsPerQuote: 20,
  /** A clarification thread's message (docs/people.md), in characters: several paragraphs, not a document. */
  messageText: 4000,
  /** Documents of its tender one message points to. */
  documentsPerMessage: 10,
  /** Messages one thread holds: a thread read whole stays within one operation's row budget. */
  messagesPerThread: 500,
  /** Questionnaire links one tender holds, revoked ones included: its list stays within one operation's row budget. */
  questionnaireLinksPerTender: 50,
  /** An underwriter's reason for a decline or referral (spec 2.5 `reason`), in characters. */
  underwriterReason: 500,
  /** The column holding it, control characters escaped (each at most six characters). */
  underwriterReasonStored: 3000,
  subjectivitiesPerOption: 20,
  /** Documents an insurer system may list in one quote (spec 2.5 `documents`, an addition); each is fetched within the step. */
  documentsPerQuote: 5,
  /** A listed document's URL, in characters. */
  documentUrl: 2048,
  subjectivityText: 500,
  /** A broker's response to a subjectivity, or an insurer's reason for its decision, in characters. */
  subjectivityResponse: 2000,
  /** The subjectivities of one quote in all, as JSON: what reading a tender's proposal holds stays bounded. */
  subjectivitiesBytesPerQuote: 32 * 1024,
  /** How far ahead an underwriter may date a quote's validity. */
  quoteValidityDays: 366,
  /**
   * Quote requests one tender holds at most, whatever their state: with one option kept per requested limit, all
   * of them and their risk information fit in one operation's row budget, so no tender becomes unreadable.
   */
  quoteRequestsPerTender: 50,
  /** A quote request's whole risk information, serialised: `additional` and the named fields. */
  riskInformationBytes: 20 * 1024,
  /** A question set's JSON Schema, serialised (docs/risk-assessment.md). */
  questionSetBytes: 128 * 1024,
  /** A tender's risk answers, serialised: an insurer receives the part it requires, within riskInformationBytes. */
  riskAnswersBytes: 64 * 1024,
  webhookEndpointsPerClient: 10,
  /** How long an onboarding check may wait for an insurer's callback, ms. */
  insurerCheckWaitMs: 10 * 60_000,
  /** Deliveries one replay puts back in the outbox at most (the newest). */
  webhookReplay: 1000,
  /** Request bodies, in bytes: a GraphQL request, a token request, the other REST bodies. */
  graphqlBodyBytes: 256 * 1024,
  tokenBodyBytes: 8 * 1024,
  restBodyBytes: 4 * 1024,
  /**
   * The body of PUT /integration/v1/tenders/{id}/risk-assessment: twice riskAnswersBytes, room for the other fields and
   * the layout (indentation) a client sends; answers beyond riskAnswersBytes within it are refused by their own rule.
   */
  riskAnswersBodyBytes: 128 * 1024,
  /**
   * Access-log rows (reads aggregated per tender, client, operation and minute) an instance writes in one statement:
   * on SQLite one holds the connection and the event loop while it runs (500 rows took 15–33 ms, 100 take a fifth).
   */
  accessLogBatch: 100,
  /**
   * Access-log rows an instance holds while the database refuses them; reads beyond that are counted and logged as
   * lost (docs/privacy.md): memory stays bounded through an outage.
   */
  accessLogBuffered: 50_000,
  /**
   * Tenders one part of a customer data export holds (GraphQL `skip` pages through the rest; the CLI streams every
   * part): what one export holds in memory stays bounded however many tenders a customer has.
   */
  exportTenders: 200,
  /** Access-log entries one part of an export holds at most (the newest are left out beyond it, and it says so). */
  exportAccessLogEntries: 20_000,
} as const;

/**
 * The one text rule of every free-text field, by Unicode general category (docs/errors-and-limits.md "Text"). No text
 * holds:
 * - Cc, controls (C0, DEL, C1: ESC of ANSI escapes, NUL, CSI), except tab, line feed and carriage return in text
 *   that may span lines;
 * - Cf, format characters: invisible (zero-width spaces, U+2060, the BOM, the soft hyphen) or reordering what a
 *   reader sees (bidi marks, embeddings, overrides, isolates, U+061C); except the zero-width joiner inside an emoji
 *   sequence (👩‍💻), and the zero-width (non-)joiner between letters of the scripts that are written with them
 *   (Arabic, Syriac and the Indic scripts);
 * - Zl and Zp (U+2028, U+2029): line breaks no one-line field holds, and not every reader breaks at;
 * - Co (private use), Cn (unassigned in the Unicode version of the runtime's ICU, noncharacters included) and Cs
 *   (a lone surrogate, which is no character at all).
 * One-line fields also refuse tab, line feed and carriage return. Built once here as regular expression sources: the
 * schemas' `pattern` (ajv compiles them with the `u` flag, and the OpenAPI document shows them), the precise message
 * naming the code point (`textProblem`), the escaping of an insurer's text (`escapeForbidden`) and file names all
 * use them.
 */
const JOINING_SCRIPTS = [
  'Arabic',
  'Syriac',
  'Devanagari',
  'Bengali',
  'Gurmukhi',
  'Gujarati',
  'Oriya',
  'Tamil',
  'Telugu',
  'Kannada',
  'Malayalam',
  'Sinhala',
]
  .map((script) => `\\p{scx=${script}}`)
  .join('');
const EMOJI_JOINER = '(?<=\\p{Extended_Pictographic}[\\u{FE0F}\\p{Emoji_Modifier}]?)\\u200D(?=\\p{Extended_Pictographic})';
const SCRIPT_JOINER = `(?<=[${JOINING_SCRIPTS}])[\\u200C\\u200D](?=[${JOINING_SCRIPTS}])`;
const NEVER = `[\\p{Zl}\\p{Zp}\\p{Co}\\p{Cn}\\p{Cs}]|(?!${EMOJI_JOINER}|${SCRIPT_JOINER})\\p{Cf}`;
/** Whether a field is one line (names, codes, file names) or may span lines (reasons, notes). */
export type TextLines = 'line' | 'lines';
const FORBIDDEN: Record<TextLines, string> = {
  line: `(?:\\p{Cc}|${NEVER})`,
  lines: `(?:(?![\\t\\n\\r])\\p{Cc}|${NEVER})`,
};
/** Blank is only whitespace (Z*) and invisible format characters (Cf). */
const VISIBLE = '[^\\p{Z}\\p{Cf}\\s]';
const textPattern = (lines: TextLines, required: boolean) =>
  `^${required ? `(?=[\\s\\S]*${VISIBLE})` : ''}(?:(?!${FORBIDDEN[lines]})[\\s\\S])*$`;
const forbiddenIn = { line: new RegExp(FORBIDDEN.line, 'u'), lines: new RegExp(FORBIDDEN.lines, 'u') };
const forbiddenEverywhere = { line: new RegExp(FORBIDDEN.line, 'gu'), lines: new RegExp(FORBIDDEN.lines, 'gu') };
const NO_CONTROLS = 'without control, invisible format, bidi, separator, private-use or unassigned characters';

const CATEGORIES: [RegExp, string][] = [
  [/[\t\n\r]/u, 'a line break or tab, which a one-line field does not hold'],
  [/\p{Cc}/u, 'a control character (Cc)'],
  [/\p{Cf}/u, 'an invisible format character (Cf)'],
  [/\p{Zl}/u, 'the line separator (Zl)'],
  [/\p{Zp}/u, 'the paragraph separator (Zp)'],
  [/\p{Co}/u, 'a private-use character (Co)'],
  [/\p{Cs}/u, 'a lone surrogate (Cs)'],
  [/\p{Cn}/u, 'an unassigned code point (Cn)'],
];
const codePointName = (codePoint: number) => `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;

/** The first character of `text` the rule refuses, as `U+200B`, with its category; undefined when there is none. */
function forbiddenCharacterIn(text: string, lines: TextLines): { codePoint: string; category: string; position: number } | undefined {
  const found = forbiddenIn[lines].exec(text);
  if (!found) return undefined;
  const character = String.fromCodePoint(text.codePointAt(found.index)!);
  const [, category] = CATEGORIES.find(([pattern]) => pattern.test(character)) ?? [undefined, 'a character no text holds'];
  // Positions count characters (code points), as lengths do.
  return { codePoint: codePointName(character.codePointAt(0)!), category, position: [...text.slice(0, found.index)].length + 1 };
}

/**
 * What the text rule says of `text`, as a field's message (`must not contain U+200B (character 5): an invisible
 * format character (Cf)`); undefined when it keeps it.
 */
export function textProblem(text: string, lines: TextLines): string | undefined {
  const found = forbiddenCharacterIn(text, lines);
  return found ? `must not contain ${found.codePoint} (character ${found.position}): ${found.category}` : undefined;
}

/**
 * A partner's text (an insurer's reason, a subjectivity, an error detail) kept safely rather than refused: what the
 * rule refuses is shown escaped (`\u200b`, `\u{f0000}`), a lone surrogate as U+FFFD. The people's text is refused
 * instead (`textProblem`).
 */
export function escapeForbidden(text: string, lines: TextLines = 'lines'): string {
  return text.replace(forbiddenEverywhere[lines], (character) => {
    const codePoint = character.codePointAt(0)!;
    if (codePoint >= 0xd800 && codePoint <= 0xdfff) return '\uFFFD';
    const hex = codePoint.toString(16);
    return codePoint > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
  });
}

/**
 * The problems of free-form JSON a person gives (risk information): every string obeys the text rule (lines allowed),
 * every key the one-line rule. Each problem names its place under `parameter` (`riskInformation.notes[0]`).
 */
export function jsonTextProblems(value: unknown, parameter: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const pending: [unknown, string][] = [[value, parameter]];
  while (pending.length > 0) {
    const [current, path] = pending.pop()!;
    if (typeof current === 'string') {
      const problem = textProblem(current, 'lines');
      if (problem) problems.push({ parameter: path, message: problem });
    } else if (Array.isArray(current)) current.forEach((item, index) => pending.push([item, `${path}[${index}]`]));
    else if (typeof current === 'object' && current !== null) {
      for (const [key, item] of Object.entries(current)) {
        const problem = textProblem(key, 'line');
        if (problem) problems.push({ parameter: path, message: `a key ${problem}` });
        else pending.push([item, `${path}.${key}`]);
      }
    }
  }
  return problems;
}

/** Every character the rule refuses in a one-line text replaced by `replacement` (file names). */
export const replaceForbidden = (text: string, replacement: string): string => text.replace(forbiddenEverywhere.line, replacement);

/**
 * Text compared as a reader sees it: NFKC, case folded (upper then lower case folds ß to ss, ﬁ to fi), without
 * default-ignorable code points (U+034F, variation selectors, joiners), whitespace runs as one space. Whether a text
 * names someone is judged on this form, so invisible or look-alike characters hide no name.
 */
export function comparableText(text: string): string {
  return text
    .normalize('NFKC')
    .toUpperCase()
    .toLowerCase()
    .normalize('NFKC')
    .replace(/\p{Default_Ignorable_Code_Point}/gu, '')
    .replace(/\s+/gu, ' ')
    .trim();
}

/**
 * A free-text field's schema: the text rule as its `pattern` and `x-text` (which the checker reads to name the
 * refused code point: validate.ts), at most `max` characters.
 */
export const text = (options: { max: number; lines: TextLines; required: boolean; min?: number; description?: string }): TString =>
  Type.String({
    ...(options.min !== undefined ? { minLength: options.min } : options.required && options.lines === 'line' ? { minLength: 1 } : {}),
    maxLength: options.max,
    pattern: textPattern(options.lines, options.required),
    'x-text': options.lines,
    description:
      options.description ??
      `${options.required ? `1 to ${options.max} characters, not blank` : `at most ${options.max} characters`}, ${NO_CONTROLS}${options.lines === 'lines' ? ' (line breaks allowed)' : ''}`,
  });

/** One line of 1 to `max` characters, not blank: names, products, codes. */
export const requiredText = (max: number): TString => text({ max, lines: 'line', required: true });
/** One line of at most `max` characters, possibly empty. */
export const optionalText = (max: number): TString => text({ max, lines: 'line', required: false });
/** Text that may span lines, 1 to `max` characters, not blank: reasons. */
export const requiredMultiLineText = (max: number): TString => text({ max, lines: 'lines', required: true });
/** Text that may span lines, at most `max` characters, possibly empty. */
export const optionalMultiLineText = (max: number): TString => text({ max, lines: 'lines', required: false });

/**
 * The control characters no string of any request holds, whatever its field (GraphQL's request screen): C0 other than
 * tab, line feed and carriage return, the part of the text rule that also keeps ids, keys and JSON values storable.
 * NUL above all: PostgreSQL text cannot hold it (the statement fails), SQLite stores it and hands it on to insurers
 * and webhook receivers. The raw-body screen (src/api/http/json-body.ts) refuses NUL anywhere in a JSON body already.
 */
// eslint-disable-next-line no-control-regex
const C0_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;

/** The first such control character in `text`, as `U+0000`; undefined when there is none. */
export function controlCharacterIn(value: string): string | undefined {
  const found = C0_CONTROL.exec(value);
  return found ? codePointName(found[0].charCodeAt(0)) : undefined;
}
/** Absent, null, or `schema`: GraphQL's nullable input fields. */
export const nullable = <T extends TSchema>(schema: T) =>
  Type.Optional(Type.Union([schema, Type.Null()], { description: schema.description }));

export const Reference = text({
  min: 1,
  max: LIMITS.reference,
  lines: 'line',
  required: false,
  description: `a string of 1 to ${LIMITS.reference} characters, ${NO_CONTROLS}`,
});
export const Amount = Type.Number({ minimum: 0, maximum: MAX_AMOUNT, description: `a non-negative amount up to ${MAX_AMOUNT}` });
export const PositiveAmount = Type.Number({
  exclusiveMinimum: 0,
  maximum: MAX_AMOUNT,
  description: `a positive amount up to ${MAX_AMOUNT}`,
});
/** ISO 8601 / RFC 3339 with seconds and an offset, a real calendar day, years 0001–9999 (timestamp.ts). */
export const Timestamp = Type.String({ format: 'date-time', description: TIMESTAMP_RULE });
export const CurrencyCode = Type.String({ pattern: '^[A-Z]{3}$', description: 'an ISO 4217 code such as EUR' });
export const Email = Type.String({
  maxLength: LIMITS.email,
  pattern: `^(?:(?!${FORBIDDEN.line})[^\\s@])+@(?:(?!${FORBIDDEN.line})[^\\s@])+\\.(?:(?!${FORBIDDEN.line})[^\\s@])+$`,
  'x-text': 'line',
  description: 'an email address',
});
export const HttpUrl = Type.String({
  maxLength: LIMITS.url,
  pattern: '^[hH][tT][tT][pP][sS]?://\\S+$',
  description: 'an absolute http(s) URL',
});
/**
 * The gateway's one URL check, with what the HttpUrl pattern cannot say: the value parses as an absolute http(s) URL
 * with a host. Undefined otherwise.
 */
export function parseHttpUrl(value: string): URL | undefined {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' ? url : undefined;
  } catch {
    return undefined;
  }
}
export const isHttpUrl = (value: string): boolean => parseHttpUrl(value) !== undefined;
/** A page of a list, for GraphQL arguments and REST query parameters alike. */
export const PageRules = Type.Object({
  skip: Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1, description: 'an integer ≥ 0' }),
  limit: Type.Integer({ minimum: 1, maximum: LIMITS.pageSize, description: `an integer from 1 to ${LIMITS.pageSize}` }),
});

/** The `after` of a list: the opaque `next` of an earlier page. */
export const Cursor = Type.String({
  minLength: 1,
  maxLength: LIMITS.cursor,
  pattern: '^[\\w-]+$',
  description: "an earlier page's metadata.next",
});

/** A REST request that takes no fields (revoking the bearer token, rotating a webhook secret): `{}`, or no body. */
export const EmptyBody = Type.Object({}, { additionalProperties: false, description: 'an empty JSON object, or no body' });
