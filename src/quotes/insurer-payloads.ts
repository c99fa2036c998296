import { PartnerError } from './insurer-client';

export interface QuoteOptionPayload {
  insurance_sum: number;
  deductible: number;
  premium: number;
}

const MAX_OPTIONS = 500;
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const malformed = (what: string) => new PartnerError(`malformed ${what}`, false);

/** Spec 2.4: `{id, status: "PROCESSING"}`. */
export function parseAcknowledgement(body: unknown): string {
  if (!isRecord(body)) throw malformed('acknowledgement: not a JSON object');
  const { id, status } = body;
  if (typeof id !== 'string' || id.length === 0 || id.length > 200) throw malformed('acknowledgement: id must be a string of 1 to 200 characters');
  if (status !== 'PROCESSING') throw malformed(`acknowledgement: status must be PROCESSING, got ${JSON.stringify(status)}`);
  return id;
}

const isAmount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** Spec 2.5: `{id, quote_options: [{insurance_sum, deductible, premium}]}`, for the id that was asked for. */
export function parseQuote(body: unknown, expectedId: string): QuoteOptionPayload[] {
  if (!isRecord(body)) throw malformed('quote: not a JSON object');
  if (body.id !== expectedId) throw malformed(`quote: id ${JSON.stringify(body.id)} does not match the requested ${expectedId}`);
  const options = body.quote_options;
  if (!Array.isArray(options)) throw malformed('quote: quote_options must be an array');
  if (options.length > MAX_OPTIONS) throw malformed(`quote: more than ${MAX_OPTIONS} options`);
  return options.map((option, index) => {
    if (!isRecord(option) || !isAmount(option.insurance_sum) || !isAmount(option.deductible) || !isAmount(option.premium)) {
      throw malformed(`quote: option ${index} needs finite, non-negative insurance_sum, deductible and premium`);
    }
    return { insurance_sum: option.insurance_sum, deductible: option.deductible, premium: option.premium };
  });
}
