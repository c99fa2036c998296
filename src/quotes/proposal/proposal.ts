import type { QuoteRequest } from '../quote-request.entity';
import type { CheapestOptionView, ProposalOverview } from './proposal.types';
import type { QuoteOptionView, QuoteRequestView } from '../quote.types';
import type { Tender } from '../../tenders';
import { DEFAULT_CURRENCY } from '../quote-answer';
import { QuoteRequestStatus } from '../quote-request-status';
import { presentSubjectivity, untrackedSubjectivity } from '../subjectivities/subjectivity.types';

/** The currency of a request's options: as the insurer gave it, else the tender's. */
const currencyOf = (request: Pick<QuoteRequest, 'currency'>): string => request.currency ?? DEFAULT_CURRENCY;

/** Whether a request's quote can no longer be ordered: EXPIRED, or past its validity before the sweep saw it. */
export const hasExpired = (request: Pick<QuoteRequest, 'status' | 'validUntil'>, now: Date): boolean =>
  request.status === QuoteRequestStatus.EXPIRED || (request.validUntil != null && request.validUntil < now);

/** States whose answer names a currency: a quote, or one that expired. */
const ANSWERED: readonly QuoteRequestStatus[] = [QuoteRequestStatus.QUOTED, QuoteRequestStatus.EXPIRED];

/** Money is shown to the cent: round half away from zero after removing binary noise. */
const roundCents = (amount: number): number => (Math.sign(amount) * Math.round(Math.abs(amount) * 100 + 1e-9)) / 100;

const premiumWithTax = (premium: number, taxRate: number): number => roundCents(premium * (1 + taxRate));

/** The newest request per insurer: what the proposal compares. */
function latestPerInsurer(requests: QuoteRequest[]): QuoteRequest[] {
  const latest = new Map<string, QuoteRequest>();
  for (const request of [...requests].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())) {
    if (!latest.has(request.insurer.id)) latest.set(request.insurer.id, request);
  }
  return [...latest.values()].sort((a, b) => a.insurer.name.localeCompare(b.insurer.name));
}

/**
 * What a viewer may see of quote requests: who asked for them (not insurers); the internal detail (internal users);
 * the underwriter's reasons (not analysts).
 */
interface RequestRedaction {
  showActors: boolean;
  showInternal: boolean;
  showReasons: boolean;
}

function presentRequest(
  request: QuoteRequest,
  taxRate: number,
  cheapestIds: Set<string>,
  orderedId: string | null,
  now: Date,
  { showActors, showInternal, showReasons }: RequestRedaction,
): QuoteRequestView {
  const currency = currencyOf(request);
  const expired = hasExpired(request, now);
  const options: QuoteOptionView[] = request.options.getItems().map((option) => ({
    id: option.id,
    insuranceSum: option.insuranceSum,
    deductible: option.deductible,
    premium: option.premium,
    premiumWithTax: premiumWithTax(option.premium, taxRate),
    currency,
    subjectivities:
      option.tracked.isInitialized() && option.tracked.length > 0
        ? option.tracked.getItems().map((subjectivity) => presentSubjectivity(subjectivity, showActors))
        : (option.subjectivities ?? []).map((subjectivity) => untrackedSubjectivity(subjectivity, option.id)),
    expired,
    cheapest: cheapestIds.has(option.id),
    ordered: option.id === orderedId,
  }));
  return {
    id: request.id,
    tenderId: request.tender.id,
    insurer: request.insurer,
    status: request.status,
    insurerReference: request.insurerReference ?? null,
    limits: request.limits.map((limit) => ({ insuranceSum: limit.insurance_sum, deductible: limit.deductible })),
    attempts: request.attempts,
    nextAttemptAt: request.nextAttemptAt ?? null,
    lastError: request.lastError ?? null,
    lastErrorDetail: showInternal ? (request.lastErrorDetail ?? null) : null,
    failureReason: request.failureReason ?? null,
    failureDetail: showInternal ? (request.failureDetail ?? null) : null,
    quoteNote: showInternal ? (request.quoteNote ?? null) : null,
    options,
    validUntil: request.validUntil ?? null,
    currency: ANSWERED.includes(request.status) ? currency : (request.currency ?? null),
    underwriterReason: showReasons ? (request.underwriterReason ?? null) : null,
    source: request.source,
    requestedBy: showActors ? request.requestedBy : null,
    answeredBy: showActors ? (request.answeredBy ?? null) : null,
    createdAt: request.createdAt,
    updatedAt: request.updatedAt,
    acknowledgedAt: request.acknowledgedAt ?? null,
    callbackReceivedAt: request.callbackReceivedAt ?? null,
    quotedAt: request.quotedAt ?? null,
  };
}

/**
 * The proposal overview (DESIGN 3, step 5): per insurer its latest request and options, premiums with tax,
 * and per currency and insurance sum / deductible pair the cheapest option that has not expired (ties: the insurer
 * first by name; options in different currencies are never ranked against each other).
 * `requests` are those the viewer may see, with `insurer` and `options` loaded; `showActors` reveals who
 * asked for them (not to insurers), `showInternal` the detail of failures (internal users only). What has expired is
 * judged at `now`: the advice export gives its own time, so the same data at the same time gives the same overview.
 */
export function buildProposal(
  tender: Tender,
  requests: QuoteRequest[],
  { showTaxRate, ...redaction }: { showTaxRate: boolean } & RequestRedaction,
  now: Date,
): { proposal: ProposalOverview; requests: QuoteRequestView[] } {
  const latest = latestPerInsurer(requests);
  const best = new Map<string, { request: QuoteRequest; optionId: string; premium: number }>();
  for (const request of latest) {
    if (hasExpired(request, now)) continue;
    for (const option of request.options.getItems()) {
      const key = `${currencyOf(request)}|${option.insuranceSum}/${option.deductible}`;
      const current = best.get(key);
      if (!current || option.premium < current.premium) best.set(key, { request, optionId: option.id, premium: option.premium });
    }
  }
  const cheapestIds = new Set([...best.values()].map((entry) => entry.optionId));
  // The ordered option is named only to a viewer who sees it among the options: a losing insurer does not.
  const ordered = tender.orderedOption?.id ?? null;
  const orderedId = requests.some((request) => request.options.getItems().some((option) => option.id === ordered)) ? ordered : null;
  const views = new Map(
    requests.map((request) => [
      request.id,
      presentRequest(request, tender.taxRate, latest.includes(request) ? cheapestIds : new Set(), orderedId, now, redaction),
    ]),
  );
  const cheapest: CheapestOptionView[] = [...best.values()]
    .map(({ request, optionId }) => {
      const option = views.get(request.id)!.options.find((candidate) => candidate.id === optionId)!;
      return {
        insuranceSum: option.insuranceSum,
        deductible: option.deductible,
        currency: option.currency,
        insurer: request.insurer,
        option,
      };
    })
    .sort((a, b) => a.currency.localeCompare(b.currency) || a.insuranceSum - b.insuranceSum || a.deductible - b.deductible);
  return {
    proposal: {
      tenderId: tender.id,
      taxRate: showTaxRate ? tender.taxRate : null,
      entries: latest.map((request) => ({ insurer: request.insurer, quoteRequest: views.get(request.id)! })),
      cheapest,
      orderedOptionId: orderedId,
    },
    requests: requests.map((request) => views.get(request.id)!),
  };
}
