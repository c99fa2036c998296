import { Type } from '@sinclair/typebox';
import {
  Amount,
  CurrencyCode,
  HttpUrl,
  LIMITS,
  MAX_AMOUNT,
  PositiveAmount,
  Reference,
  nullable,
  requiredText,
} from '../platform/validation/rules';

/** The field rules of quoting: a broker's quote request, an insurer's options and its callback. */

const Limit = Type.Object({ insuranceSum: PositiveAmount, deductible: Amount });

/** Money is shown to the cent (premiums with tax are rounded to it): a premium below a cent shows as nothing. */
const MIN_PREMIUM = 0.01;
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

/**
 * Spec 2.5 with its optional terms, as an insurer integrator reads it (docs/quotation-terms.md and the OpenAPI document's
 * `InsurerQuote`): only `id` and `quote_options` are the specification's; everything else may be left out. The
 * gateway reads an answer with quote-answer.ts, which also checks what a schema cannot say (a real ISO 4217 code, a
 * real calendar day, a validity within bounds, a deductible below the sum, the decision matching the options).
 */
export const InsurerQuoteSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: LIMITS.reference, description: 'The request id of the acknowledgement (spec 2.4).' }),
    quote_options: Type.Array(
      Type.Object(
        {
          insurance_sum: PositiveAmount,
          deductible: Type.Number({ minimum: 0, maximum: MAX_AMOUNT, description: 'Below the insurance sum.' }),
          premium: Premium,
          subjectivities: Type.Optional(
            Type.Union([
              Type.Array(
                Type.Object({
                  text: Type.String({ minLength: 1, maxLength: LIMITS.subjectivityText }),
                  stage: Type.Union([Type.Literal('PRE_BIND'), Type.Literal('POST_BIND')], {
                    description: 'PRE_BIND: met before cover is bound; POST_BIND: after.',
                  }),
                  due_at: Type.Optional(
                    Type.Union([
                      Type.String({ format: 'date-time', description: 'Optional. When it must be met (RFC 3339).' }),
                      Type.String({
                        format: 'date',
                        description: "A date: the end of that day in the gateway's QUOTE_VALIDITY_ZONE (Europe/Berlin).",
                      }),
                      Type.Null(),
                    ]),
                  ),
                }),
                {
                  maxItems: LIMITS.subjectivitiesPerOption,
                  description: 'Optional. Conditions of this option; options that differ in them are different offers.',
                },
              ),
              Type.Null(),
            ]),
          ),
        },
        { description: 'One option (spec 2.5): for one requested insurance_sum / deductible pair.' },
      ),
      { maxItems: LIMITS.optionsPerQuote, description: 'Empty: a decline (unless `decision` says REFERRED).' },
    ),
    decision: Type.Optional(
      Type.Union([Type.Literal('QUOTED'), Type.Literal('DECLINED'), Type.Literal('REFERRED'), Type.Null()], {
        description: 'Optional. Absent: options mean QUOTED, none DECLINED. REFERRED: no options; call back again when decided.',
      }),
    ),
    reason: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: LIMITS.underwriterReason }), Type.Null()], {
        description: "Optional, for DECLINED or REFERRED: shown to the tender's broker, never to other insurers.",
      }),
    ),
    valid_until: Type.Optional(
      Type.Union(
        [
          Type.String({ format: 'date-time' }),
          Type.String({ format: 'date', description: "A date: the end of that day in the gateway's QUOTE_VALIDITY_ZONE (Europe/Berlin)." }),
          Type.Null(),
        ],
        { description: `Optional, for a quote with options: valid through this instant, at most ${LIMITS.quoteValidityDays} days ahead.` },
      ),
    ),
    currency: Type.Optional(
      Type.Union([Type.String({ pattern: '^[A-Z]{3}$' }), Type.Null()], {
        description: "Optional. ISO 4217; absent: the tender's currency (EUR).",
      }),
    ),
    documents: Type.Optional(
      Type.Union([
        Type.Array(
          Type.Object({
            type: Type.String({
              minLength: 1,
              description: 'The content type: PDF, PNG, JPEG, DOCX, XLSX, plain text or CSV; checked against the bytes.',
            }),
            filename: Type.String({
              minLength: 1,
              description: 'A file name of at most 255 bytes, without path separators or control characters.',
            }),
            url: Type.String({
              minLength: 1,
              maxLength: LIMITS.documentUrl,
              description:
                "Where the gateway fetches it (GET, no redirects), within the insurer URL policy; with a Content-Length. The insurer's credential goes along only to its quote API's origin.",
            }),
            sha256: Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'The SHA-256 of the bytes, 64 hex digits.' }),
          }),
          {
            maxItems: LIMITS.documentsPerQuote,
            description:
              'Optional. Quote documents (the slip): fetched with the quote and stored as its QUOTE documents; one that cannot be fetched or does not match fails the quote.',
          },
        ),
        Type.Null(),
      ]),
    ),
  },
  {
    title: 'InsurerQuote',
    description:
      'The answer of GET {insurer_base_url}/quotes/{id} (spec 2.5). Only id and quote_options are required: an insurer that sends only them is read as the specification says.',
  },
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
  riskInformation: nullable(
    Type.Object({
      turnover: nullable(Type.Object({ amount: Amount, currency: CurrencyCode })),
      typeOfBusiness: nullable(requiredText(LIMITS.name)),
      websiteUrl: nullable(HttpUrl),
      customerName: nullable(requiredText(LIMITS.name)),
    }),
  ),
});

/** The REST body of an insurer's "your quote is ready" (snake_case, as the specification writes it). */
export const QuoteCallbackBody = Type.Object(
  { quote_request_id: Reference },
  { additionalProperties: false, description: 'a JSON object {"quote_request_id": "..."}' },
);

/** `POST /integration/v1/subjectivities/{id}/decision`: the quoting insurer's decision (docs/lifecycle.md, "Binding"). */
export const SubjectivityDecisionBody = Type.Object(
  {
    decision: Type.Union([Type.Literal('ACCEPT'), Type.Literal('REJECT'), Type.Literal('WAIVE')], {
      description: 'ACCEPT or WAIVE clears it; REJECT (of a response, with a reason) asks the broker for another one.',
    }),
    reason: Type.Optional(Type.String({ maxLength: LIMITS.reason, description: 'Required for REJECT.' })),
  },
  { additionalProperties: false, description: 'a JSON object {"decision": "ACCEPT", "reason": "..."}' },
);

/** `POST /integration/v1/tenders/{id}/cover-order/decision`: the insurer of the ordered option answers the order. */
export const CoverOrderDecisionBody = Type.Object(
  {
    decision: Type.Union([Type.Literal('ACCEPT'), Type.Literal('DECLINE')]),
    inception_date: Type.Optional(
      Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'For ACCEPT (required): the first day of cover, YYYY-MM-DD.' }),
    ),
    reason: Type.Optional(Type.String({ maxLength: LIMITS.reason, description: 'For DECLINE (required): why.' })),
  },
  {
    additionalProperties: false,
    description: 'a JSON object {"decision": "ACCEPT", "inception_date": "2027-01-01"} or {"decision": "DECLINE", "reason": "..."}',
  },
);
