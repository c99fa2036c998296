import { Type, type TSchema } from '@sinclair/typebox';
import { all as countries } from 'iso-3166-1';
import { TIMESTAMP_RULE } from './timestamp';

/**
 * Every field rule and limit of the gateway, once (DESIGN 6). The services check GraphQL inputs against these
 * schemas, the REST routes parse their bodies with them, and the OpenAPI document shows them as its request
 * schemas. Each schema's `description` is also the message a caller gets when a value breaks it. What JSON
 * Schema cannot say (a real country or currency, an allowed URL, a byte size, a rule across fields) is checked
 * by the service, next to the lookups it needs, with the limits from here.
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
const requiredText = (max: number): TSchema =>
  Type.String({
    minLength: 1,
    maxLength: max,
    pattern: SINGLE_LINE_NOT_BLANK,
    description: `1 to ${max} characters, not blank, ${NO_CONTROLS}`,
  });
/** One line of at most `max` characters, possibly empty. */
const optionalText = (max: number): TSchema =>
  Type.String({ maxLength: max, pattern: SINGLE_LINE, description: `at most ${max} characters, ${NO_CONTROLS}` });
/** Absent, null, or `schema`: GraphQL's nullable input fields. */
export const nullable = <T extends TSchema>(schema: T) =>
  Type.Optional(Type.Union([schema, Type.Null()], { description: schema.description }));

export const Reference = Type.String({
  minLength: 1,
  maxLength: LIMITS.reference,
  pattern: SINGLE_LINE,
  description: `a string of 1 to ${LIMITS.reference} characters, ${NO_CONTROLS}`,
});
const Amount = Type.Number({ minimum: 0, maximum: MAX_AMOUNT, description: `a non-negative amount up to ${MAX_AMOUNT}` });
const PositiveAmount = Type.Number({ exclusiveMinimum: 0, maximum: MAX_AMOUNT, description: `a positive amount up to ${MAX_AMOUNT}` });
const TaxRate = Type.Number({ minimum: 0, maximum: 1, description: 'between 0 and 1, e.g. 0.19' });
/** ISO 8601 / RFC 3339 with seconds and an offset, a real calendar day, years 0001–9999 (timestamp.ts). */
export const Timestamp = Type.String({ format: 'date-time', description: TIMESTAMP_RULE });
/**
 * The officially assigned ISO 3166-1 alpha-2 codes (iso-3166-1): not the reserved or user-assigned ones that
 * Intl knows as regions (EU, UN, QO, and XK, which some use for Kosovo but ISO has not assigned), or empty.
 */
const CountryCode = Type.String({
  pattern: `^(?:${countries()
    .map((country) => country.alpha2)
    .join('|')})?$`,
  description: 'an officially assigned ISO 3166-1 alpha-2 code such as DE, or empty',
});
const CurrencyCode = Type.String({ pattern: '^[A-Z]{3}$', description: 'an ISO 4217 code such as EUR' });
const Email = Type.String({
  maxLength: LIMITS.email,
  pattern: `^[^\\s@${HIDDEN_CONTROLS}]+@[^\\s@${HIDDEN_CONTROLS}]+\\.[^\\s@${HIDDEN_CONTROLS}]+$`,
  description: 'an email address',
});
const HttpUrl = Type.String({ maxLength: LIMITS.url, pattern: '^[hH][tT][tT][pP][sS]?://\\S+$', description: 'an absolute http(s) URL' });
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
export const PolicyNumber = Type.String({
  pattern: `^[\\w./-]{1,${LIMITS.policyNumber}}$`,
  description: `1 to ${LIMITS.policyNumber} letters, digits, ".", "/", "-" or "_"`,
});
/** Reasons may span lines. */
export const RequiredReason = Type.String({
  maxLength: LIMITS.reason,
  pattern: MULTI_LINE_NOT_BLANK,
  description: `1 to ${LIMITS.reason} characters, not blank, ${NO_CONTROLS} (line breaks allowed)`,
});
export const OptionalReason = Type.String({
  maxLength: LIMITS.reason,
  pattern: MULTI_LINE,
  description: `at most ${LIMITS.reason} characters, ${NO_CONTROLS} (line breaks allowed)`,
});
export const LineOfBusinessId = Type.String({ pattern: `^[\\w-]{1,${LIMITS.code}}$`, description: 'a line of business id' });

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

// REST request bodies (snake_case, as the specification writes them).

export const TokenRequestBody = Type.Object(
  {
    app_id: Type.String({
      minLength: 1,
      maxLength: LIMITS.clientCredential,
      description: `required, 1 to ${LIMITS.clientCredential} characters`,
    }),
    secret: Type.String({
      minLength: 1,
      maxLength: LIMITS.clientCredential,
      description: `required, 1 to ${LIMITS.clientCredential} characters`,
    }),
    expiry: Type.Optional({ ...Timestamp, description: `${TIMESTAMP_RULE}; default: the configured default lifetime` }),
  },
  { additionalProperties: false, description: 'a JSON object with app_id, secret and optionally expiry' },
);

export const PolicyDocumentationBody = Type.Object(
  { policy_number: PolicyNumber, confirmed_at: Type.Optional(Timestamp) },
  { additionalProperties: false, description: 'a JSON object {"policy_number": "...", "confirmed_at": "..."}' },
);

export const QuoteCallbackBody = Type.Object(
  { quote_request_id: Reference },
  { additionalProperties: false, description: 'a JSON object {"quote_request_id": "..."}' },
);

/** The revocation request: the bearer token is the one revoked, the body (if any) is `{}`. */
export const EmptyBody = Type.Object({}, { additionalProperties: false, description: 'an empty JSON object, or no body' });

// GraphQL inputs (camelCase, as the input types name them).

const Address = Type.Object({
  street: optionalText(LIMITS.name),
  houseNumber: optionalText(LIMITS.shortText),
  zip: optionalText(LIMITS.shortText),
  city: optionalText(LIMITS.personName),
  country: CountryCode,
});

const Person = Type.Object({
  accountId: requiredText(LIMITS.code),
  email: Email,
  firstName: requiredText(LIMITS.personName),
  lastName: requiredText(LIMITS.personName),
  salutation: optionalText(LIMITS.shortText),
});

export const CreateTenderRules = Type.Object({
  product: requiredText(LIMITS.name),
  taxRate: TaxRate,
  customer: Type.Object({
    companyId: nullable(requiredText(LIMITS.code)),
    name: nullable(requiredText(LIMITS.name)),
    address: nullable(Address),
  }),
  submitter: Person,
  personInCharge: nullable(Person),
});

const Limit = Type.Object({ insuranceSum: PositiveAmount, deductible: Amount });

/** Money is shown to the cent (premiums with tax are rounded to it): a premium below a cent shows as nothing. */
export const MIN_PREMIUM = 0.01;
const Premium = Type.Number({
  minimum: MIN_PREMIUM,
  maximum: MAX_AMOUNT,
  description: `an amount of at least ${MIN_PREMIUM} (a cent) up to ${MAX_AMOUNT}`,
});

/** Spec 2.5: one option of an insurer's quote. The deductible below the sum is checked with the quote. */
export const QuoteOptionPayload = Type.Object(
  { insurance_sum: PositiveAmount, deductible: Amount, premium: Premium },
  { description: 'an object {"insurance_sum", "deductible", "premium"}' },
);

export const RequestQuotesRules = Type.Object({
  insurerIds: Type.Array(Type.String(), {
    minItems: 1,
    maxItems: LIMITS.insurersPerQuoteRequest,
    description: `1 to ${LIMITS.insurersPerQuoteRequest} insurers`,
  }),
  limits: Type.Array(Limit, {
    minItems: 1,
    maxItems: LIMITS.limitsPerQuoteRequest,
    description: `1 to ${LIMITS.limitsPerQuoteRequest} limits`,
  }),
  riskInformation: Type.Object({
    turnover: nullable(Type.Object({ amount: Amount, currency: CurrencyCode })),
    typeOfBusiness: nullable(requiredText(LIMITS.name)),
    websiteUrl: nullable(HttpUrl),
    customerName: nullable(requiredText(LIMITS.name)),
  }),
});

export const CreateInsurerRules = Type.Object({
  name: requiredText(LIMITS.name),
  quoteApiUrl: HttpUrl,
  outboundCredential: nullable(optionalText(LIMITS.credential)),
});

/** Event types one webhook endpoint subscribes to at most. */
const EVENT_TYPES_PER_ENDPOINT = 10;
const EVENT_TYPES_RULE = `1 to ${EVENT_TYPES_PER_ENDPOINT} distinct event types`;
const EventTypes = (description: string) =>
  Type.Array(Type.String({ pattern: '^[a-z_]+\\.[a-z_]+$', description: 'an event type such as tender.status_changed' }), {
    minItems: 1,
    maxItems: EVENT_TYPES_PER_ENDPOINT,
    uniqueItems: true,
    description,
  });

/** A webhook endpoint as GraphQL takes it; the event types are GraphQL's enum there. */
export const WebhookEndpointRules = Type.Object({
  url: nullable(HttpUrl),
  eventTypes: nullable(
    Type.Array(Type.String(), { minItems: 1, maxItems: EVENT_TYPES_PER_ENDPOINT, uniqueItems: true, description: EVENT_TYPES_RULE }),
  ),
  description: nullable(optionalText(LIMITS.name)),
});

export const WebhookEndpointBody = Type.Object(
  { url: HttpUrl, event_types: EventTypes(EVENT_TYPES_RULE), description: Type.Optional(optionalText(LIMITS.name)) },
  {
    additionalProperties: false,
    description: 'a JSON object {"url": "https://...", "event_types": ["tender.status_changed"], "description": "..."}',
  },
);

export const WebhookEndpointChangeBody = Type.Object(
  {
    url: Type.Optional(HttpUrl),
    event_types: Type.Optional(EventTypes(EVENT_TYPES_RULE)),
    description: Type.Optional(optionalText(LIMITS.name)),
    enabled: Type.Optional(Type.Boolean({ description: 'true or false' })),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'a JSON object with one or more of url, event_types, description, enabled',
  },
);

export const WebhookReplayBody = Type.Object(
  { since: Timestamp },
  { additionalProperties: false, description: 'a JSON object {"since": "<timestamp>"}' },
);

export const CreateApiClientRules = Type.Object({
  description: nullable(optionalText(LIMITS.name)),
});
