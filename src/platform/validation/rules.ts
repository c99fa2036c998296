import { Type, type TSchema } from '@sinclair/typebox';
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
  webhookEndpointsPerClient: 10,
  /** How long an onboarding check may wait for an insurer's callback, ms. */
  insurerCheckWaitMs: 10 * 60_000,
  /** Deliveries one replay puts back in the outbox at most (the newest). */
  webhookReplay: 1000,
  /** Request bodies, in bytes: a GraphQL request, a token request, the other REST bodies. */
  graphqlBodyBytes: 256 * 1024,
  tokenBodyBytes: 8 * 1024,
  restBodyBytes: 4 * 1024,
  /** Access-log rows (reads aggregated per tender, client, operation and minute) an instance writes in one batch. */
  accessLogBatch: 500,
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
 * Characters no text field holds: C0 and C1 controls (line breaks, ESC of ANSI escapes, DEL, CSI) and the bidi
 * embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), which make a name read differently from what
 * it is. As a character class body for the patterns below (ajv compiles them with the `u` flag).
 */
const HIDDEN_CONTROLS = '\\p{Cc}\\u202A-\\u202E\\u2066-\\u2069';
/** Blank is only whitespace (Z*) and invisible format characters (Cf: zero-width spaces and joiners, the BOM). */
const VISIBLE = '[^\\p{Z}\\p{Cf}\\s]';
const NO_CONTROLS = 'without control characters or bidi overrides';
/** One line of text: no control or bidi character. */
const SINGLE_LINE = `^[^${HIDDEN_CONTROLS}]*$`;
/** One line that is not blank. */
const SINGLE_LINE_NOT_BLANK = `^(?=[^${HIDDEN_CONTROLS}]*${VISIBLE})[^${HIDDEN_CONTROLS}]*$`;
/** Text that may span lines (tab, line feed, carriage return), otherwise as a single line. */
const MULTI_LINE = `^(?:[\\t\\n\\r]|[^${HIDDEN_CONTROLS}])*$`;
const MULTI_LINE_NOT_BLANK = `^(?=(?:[\\t\\n\\r]|[^${HIDDEN_CONTROLS}])*${VISIBLE})(?:[\\t\\n\\r]|[^${HIDDEN_CONTROLS}])*$`;

/** One line of 1 to `max` characters, not blank: names, products, codes. */
export const requiredText = (max: number): TSchema =>
  Type.String({
    minLength: 1,
    maxLength: max,
    pattern: SINGLE_LINE_NOT_BLANK,
    description: `1 to ${max} characters, not blank, ${NO_CONTROLS}`,
  });
/** One line of at most `max` characters, possibly empty. */
export const optionalText = (max: number): TSchema =>
  Type.String({ maxLength: max, pattern: SINGLE_LINE, description: `at most ${max} characters, ${NO_CONTROLS}` });
/** Text that may span lines, 1 to `max` characters, not blank: reasons. */
export const requiredMultiLineText = (max: number): TSchema =>
  Type.String({
    maxLength: max,
    pattern: MULTI_LINE_NOT_BLANK,
    description: `1 to ${max} characters, not blank, ${NO_CONTROLS} (line breaks allowed)`,
  });
/** Text that may span lines, at most `max` characters, possibly empty. */
export const optionalMultiLineText = (max: number): TSchema =>
  Type.String({ maxLength: max, pattern: MULTI_LINE, description: `at most ${max} characters, ${NO_CONTROLS} (line breaks allowed)` });
/** Absent, null, or `schema`: GraphQL's nullable input fields. */
export const nullable = <T extends TSchema>(schema: T) =>
  Type.Optional(Type.Union([schema, Type.Null()], { description: schema.description }));

export const Reference = Type.String({
  minLength: 1,
  maxLength: LIMITS.reference,
  pattern: SINGLE_LINE,
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
  pattern: `^[^\\s@${HIDDEN_CONTROLS}]+@[^\\s@${HIDDEN_CONTROLS}]+\\.[^\\s@${HIDDEN_CONTROLS}]+$`,
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
