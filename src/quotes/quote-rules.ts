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

/** The REST body of an insurer's "your quote is ready" (snake_case, as the specification writes it). */
export const QuoteCallbackBody = Type.Object(
  { quote_request_id: Reference },
  { additionalProperties: false, description: 'a JSON object {"quote_request_id": "..."}' },
);
