import { LIMITS } from '../../platform/validation/rules';
import { QuoteOptionPayload as QuoteOptionRules } from '../quote-rules';
import { problemsOf } from '../../platform/validation/validate';
import { sanitise } from '../../platform/http/partner-client';
import { PartnerError, Reason } from './insurer-client';
import type { Limit } from '../quote-request.entity';

export interface QuoteOptionPayload {
  insurance_sum: number;
  deductible: number;
  premium: number;
}

interface ValidQuote {
  options: QuoteOptionPayload[];
  /** For internal users: what was dropped from the insurer's answer, if anything. */
  note: string | null;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const invalidAcknowledgement = (detail: string) =>
  new PartnerError(Reason.invalidAcknowledgement, `malformed acknowledgement: ${detail}`, false);
const invalidQuote = (detail: string) => new PartnerError(Reason.invalidQuote, `malformed quote: ${detail}`, false);

/** Spec 2.4: `{id, status: "PROCESSING"}`; the id is stored and sent back in URLs, so it must be printable. */
export function parseAcknowledgement(body: unknown): string {
  if (!isRecord(body)) throw invalidAcknowledgement('not a JSON object');
  const { id, status } = body;
  if (typeof id !== 'string' || id.length === 0 || id.length > LIMITS.reference)
    throw invalidAcknowledgement(`id must be a string of 1 to ${LIMITS.reference} characters`);
  if (sanitise(id) !== id) throw invalidAcknowledgement(`id ${sanitise(JSON.stringify(id), 250)} contains control characters`);
  if (status !== 'PROCESSING')
    throw invalidAcknowledgement(`status must be PROCESSING, got ${sanitise(JSON.stringify(status) ?? 'nothing', 100)}`);
  return id;
}

function optionProblem(option: unknown): string | undefined {
  const [problem] = problemsOf(QuoteOptionRules, option, 'pointer');
  if (problem) return `${problem.pointer ? `${problem.pointer.slice(1)} ` : ''}${problem.message}`;
  const { insurance_sum: sum, deductible } = option as QuoteOptionPayload;
  return deductible >= sum ? 'deductible must be below the insurance sum' : undefined;
}

/**
 * Spec 2.5: `{id, quote_options: [{insurance_sum, deductible, premium}]}`, for the id that was asked for.
 * Every option must follow the option rules (positive amounts up to MAX_AMOUNT, deductible from 0, below the sum), or the
 * whole quote is refused. Options for a limit that was not requested are dropped and noted; a quote left
 * with none of the requested limits is refused too (an empty list is a decline). Of several options for one
 * limit the cheapest is kept (the proposal compares one per limit) and the others are noted: a request keeps at
 * most one option per requested limit, which bounds what reading a tender's quotes costs.
 */
export function parseQuote(body: unknown, expectedId: string, requested: readonly Limit[]): ValidQuote {
  if (!isRecord(body)) throw invalidQuote('not a JSON object');
  if (body.id !== expectedId)
    throw invalidQuote(`id ${sanitise(JSON.stringify(body.id) ?? 'nothing', 250)} does not match the requested ${expectedId}`);
  const options = body.quote_options;
  if (!Array.isArray(options)) throw invalidQuote('quote_options must be an array');
  if (options.length > LIMITS.optionsPerQuote) throw invalidQuote(`more than ${LIMITS.optionsPerQuote} options`);
  options.forEach((option, index) => {
    const problem = optionProblem(option);
    if (problem) throw invalidQuote(`option ${index}: ${problem}`);
  });
  const wanted = new Set(requested.map((limit) => `${limit.insurance_sum}/${limit.deductible}`));
  const kept = new Map<string, QuoteOptionPayload>();
  const dropped: string[] = [];
  let repeated = 0;
  for (const option of options as QuoteOptionPayload[]) {
    const key = `${option.insurance_sum}/${option.deductible}`;
    const earlier = kept.get(key);
    if (!wanted.has(key)) dropped.push(key);
    else if (earlier) {
      repeated++;
      if (option.premium < earlier.premium) earlier.premium = option.premium;
    } else kept.set(key, { insurance_sum: option.insurance_sum, deductible: option.deductible, premium: option.premium });
  }
  if (options.length > 0 && kept.size === 0)
    throw invalidQuote(`no option is for a requested limit (offered ${dropped.slice(0, 10).join(', ')})`);
  const notes = [
    ...(dropped.length === 0
      ? []
      : [`dropped ${dropped.length} option(s) for limits that were not requested: ${dropped.slice(0, 10).join(', ')}`]),
    ...(repeated === 0 ? [] : [`dropped ${repeated} more expensive option(s) for a limit already offered`]),
  ];
  return { options: [...kept.values()], note: notes.length === 0 ? null : notes.join('; ') };
}
