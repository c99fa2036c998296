import { registerEnumType } from 'type-graphql';
import type { ProposalResult } from '../../quotes';
import type { Tender } from '../../tenders';

/** The forms of an advice export: what its document's content type and file name follow. */
export enum AdviceFormat {
  PDF = 'PDF',
  CSV = 'CSV',
  JSON = 'JSON',
}
registerEnumType(AdviceFormat, { name: 'AdviceFormat', description: 'The form of an advice export (docs/privacy.md).' });

/** The language of an advice export's labels, number and date formats: German unless the broker asks for English. */
export enum AdviceLanguage {
  DE = 'DE',
  EN = 'EN',
}
registerEnumType(AdviceLanguage, { name: 'AdviceLanguage', description: 'The language of an advice export (docs/documents.md).' });

/** The advice given to the customer (§ 61 VVG), as the broker wrote it. */
export interface AdviceText {
  wishesAndNeeds: string;
  recommendation: string;
  reasons: string;
}

/**
 * The JSON export's `schema`: a consumer checks it before reading the rest (docs/privacy.md). v2: the one time is
 * `asOf`, the proposal's state, where v1 had `madeAt`, the export's time. v3 adds the parties, the language and the
 * advice given.
 */
const ADVICE_SCHEMA = 'tender-exchange/advice/v4';

interface AdviceOption {
  insuranceSum: number;
  deductible: number;
  premium: number;
  tax: number;
  premiumWithTax: number;
  currency: string;
  /** The cheapest option of its currency and insurance sum / deductible pair. */
  cheapest: boolean;
  /** Each condition of the insurer as it stands at `asOf`: OPEN, RESPONDED, ACCEPTED, REJECTED or WAIVED, and its due date. */
  subjectivities: { text: string; stage: string; status: string; dueAt: string | null }[];
}

interface AdviceInsurer {
  insurerId: string;
  name: string;
  /** The latest quote request's status: QUOTED, DECLINED, REFERRED, FAILED, EXPIRED, AWAITING_MANUAL, QUEUED... */
  outcome: string;
  /** Why: the underwriter's reason (DECLINED, REFERRED), or the failure's (FAILED). */
  reason: string | null;
  validUntil: string | null;
  currency: string | null;
  options: AdviceOption[];
}

/** The comparison as the export shows it, in every format: the JSON export is this object. */
export interface Advice {
  schema: typeof ADVICE_SCHEMA;
  tenderId: string;
  product: string;
  /**
   * The proposal's state: when what the comparison shows last changed (`stateOf`). The one time in the export, so the
   * same proposal gives the same bytes whenever it is exported; the export's own time is in the tender's history.
   */
  asOf: string;
  taxRate: number;
  language: AdviceLanguage;
  lineOfBusiness: string;
  customer: { name: string };
  brokerCompany: { name: string };
  personInCharge: { name: string };
  /** The advice given, or null when the broker exported the comparison alone. */
  advice: AdviceText | null;
  insurers: AdviceInsurer[];
  cheapest: { insuranceSum: number; deductible: number; currency: string; insurer: string; premium: number; premiumWithTax: number }[];
}

/** The tax of an option, to the cent: what premium with tax adds to the premium. */
const taxOf = (premium: number, premiumWithTax: number): number => Math.round((premiumWithTax - premium) * 100) / 100;

/**
 * When the proposal, as exported at `exportedAt`, last changed: the tender's last change, each shown quote request's,
 * and each validity that ended before `exportedAt` (an expiry changes what the comparison shows: the quote reads
 * EXPIRED and is no longer ranked). Nothing else the advice shows changes without one of these.
 */
function stateOf(tender: Tender, { proposal }: ProposalResult, exportedAt: Date): Date {
  let latest = tender.updatedAt.getTime();
  for (const { quoteRequest } of proposal.entries) {
    latest = Math.max(latest, quoteRequest.updatedAt.getTime());
    const validUntil = quoteRequest.validUntil?.getTime();
    if (validUntil !== undefined && validUntil < exportedAt.getTime()) latest = Math.max(latest, validUntil);
    // A subjectivity's response or decision changes what the advice shows, not the tender's or the request's time.
    for (const option of quoteRequest.options)
      for (const subjectivity of option.subjectivities)
        for (const step of subjectivity.history) latest = Math.max(latest, step.at.getTime());
  }
  return new Date(latest);
}

/** The proposal overview (one implementation: quotes/proposal), exported at `exportedAt`, as the advice shows it. */
export function adviceOf(
  tender: Tender,
  result: ProposalResult,
  exportedAt: Date,
  given: { language: AdviceLanguage; advice: AdviceText | null },
): Advice {
  const { proposal } = result;
  const person = tender.personInCharge;
  return {
    schema: ADVICE_SCHEMA,
    tenderId: tender.id,
    product: tender.product,
    asOf: stateOf(tender, result, exportedAt).toISOString(),
    taxRate: tender.taxRate,
    language: given.language,
    lineOfBusiness: tender.lineOfBusiness.name,
    customer: { name: tender.customer.name },
    brokerCompany: { name: tender.brokerCompany.name },
    personInCharge: { name: `${person.firstName} ${person.lastName}` },
    advice: given.advice,
    insurers: proposal.entries.map(({ insurer, quoteRequest: request }) => ({
      insurerId: insurer.id,
      name: insurer.name,
      outcome: request.status,
      reason: request.underwriterReason ?? request.failureReason ?? null,
      validUntil: request.validUntil?.toISOString() ?? null,
      currency: request.currency,
      options: request.options.map((option) => ({
        insuranceSum: option.insuranceSum,
        deductible: option.deductible,
        premium: option.premium,
        tax: taxOf(option.premium, option.premiumWithTax),
        premiumWithTax: option.premiumWithTax,
        currency: option.currency,
        cheapest: option.cheapest,
        subjectivities: option.subjectivities.map(({ text, stage, status, dueAt }) => ({
          text,
          stage,
          status,
          dueAt: dueAt?.toISOString() ?? null,
        })),
      })),
    })),
    cheapest: proposal.cheapest.map(({ insuranceSum, deductible, currency, insurer, option }) => ({
      insuranceSum,
      deductible,
      currency,
      insurer: insurer.name,
      premium: option.premium,
      premiumWithTax: option.premiumWithTax,
    })),
  };
}
