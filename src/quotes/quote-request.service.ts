import type { EntityManager } from '@mikro-orm/core';
import { assertMay } from '../access/access-policy';
import type { Viewer } from '../access/viewer';
import { newId } from '../platform/db/ids';
import { DomainError, badInput, type FieldProblem } from '../platform/errors/domain-error';
import { Insurer } from '../insurers/insurer.entity';
import { isHttpUrl } from '../insurers/insurer.service';
import { TenderInvitation } from '../tenders/tender-invitation.entity';
import { Tender } from '../tenders/tender.entity';
import { findVisibleTender } from '../tenders/tender-access';
import { TenderStatus } from '../tenders/tender-status';
import { isAmount } from '../platform/validation/amounts';
import { QuoteRequest, type Limit } from './quote-request.entity';
import type { RequestQuotesInput } from './quote.types';

const MAX_LIMITS = 20;
const MAX_INSURERS = 50;
const MAX_ADDITIONAL_BYTES = 16 * 1024;
/** Quotes may be asked for while the tender is open and no cover has been ordered. */
const QUOTABLE: readonly TenderStatus[] = [TenderStatus.QUOTES_AVAILABLE, TenderStatus.IN_NEGOTIATION, TenderStatus.REOPENED];
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));
const SPEC_FIELDS = ['turnover', 'type_of_business', 'website_url', 'customer_name'];

function validateLimits(limits: RequestQuotesInput['limits'], problems: FieldProblem[]): Limit[] {
  if (limits.length === 0 || limits.length > MAX_LIMITS) problems.push({ parameter: 'limits', message: `give 1 to ${MAX_LIMITS} limits` });
  const seen = new Set<string>();
  return limits.map((limit, index) => {
    const at = `limits[${index}]`;
    if (!isAmount(limit.insuranceSum) || limit.insuranceSum <= 0) problems.push({ parameter: `${at}.insuranceSum`, message: 'must be a positive amount' });
    if (!isAmount(limit.deductible)) problems.push({ parameter: `${at}.deductible`, message: 'must be a non-negative amount' });
    else if (limit.deductible >= limit.insuranceSum) problems.push({ parameter: `${at}.deductible`, message: 'must be below the insurance sum' });
    const key = `${limit.insuranceSum}/${limit.deductible}`;
    if (seen.has(key)) problems.push({ parameter: at, message: 'repeats an earlier limit' });
    seen.add(key);
    return { insurance_sum: limit.insuranceSum, deductible: limit.deductible };
  });
}

/** Builds spec 2.3 `risk_information` from the input, field by field. */
function validateRiskInformation(input: RequestQuotesInput['riskInformation'], tender: Tender, problems: FieldProblem[]): Record<string, unknown> {
  const risk: Record<string, unknown> = {};
  const additional = input.additional ?? {};
  const clashes = Object.keys(additional).filter((key) => SPEC_FIELDS.includes(key));
  if (clashes.length > 0) problems.push({ parameter: 'riskInformation.additional', message: `must not repeat ${clashes.join(', ')}` });
  if (Buffer.byteLength(JSON.stringify(additional)) > MAX_ADDITIONAL_BYTES) {
    problems.push({ parameter: 'riskInformation.additional', message: 'must be at most 16 KiB of JSON' });
  }
  Object.assign(risk, additional);
  if (input.turnover) {
    const { amount, currency } = input.turnover;
    if (!isAmount(amount)) problems.push({ parameter: 'riskInformation.turnover.amount', message: 'must be a non-negative amount' });
    if (!CURRENCIES.has(currency)) problems.push({ parameter: 'riskInformation.turnover.currency', message: 'must be an ISO 4217 code such as EUR' });
    risk.turnover = { amount, currency };
  }
  if (input.typeOfBusiness !== undefined && input.typeOfBusiness !== null) {
    if (input.typeOfBusiness.trim() === '' || input.typeOfBusiness.length > 200) {
      problems.push({ parameter: 'riskInformation.typeOfBusiness', message: 'must be 1 to 200 characters' });
    }
    risk.type_of_business = input.typeOfBusiness;
  }
  if (input.websiteUrl !== undefined && input.websiteUrl !== null) {
    if (input.websiteUrl.length > 2048 || !isHttpUrl(input.websiteUrl)) problems.push({ parameter: 'riskInformation.websiteUrl', message: 'must be an absolute http(s) URL' });
    risk.website_url = input.websiteUrl;
  }
  const customerName = input.customerName ?? tender.customer.name;
  if (customerName.trim() === '' || customerName.length > 200) problems.push({ parameter: 'riskInformation.customerName', message: 'must be 1 to 200 characters' });
  risk.customer_name = customerName;
  return risk;
}

export class QuoteRequestService {
  constructor(
    private readonly em: EntityManager,
    private readonly viewer: Viewer,
  ) {}

  /**
   * Records one QUEUED quote request per insurer and invites them, in one transaction: the outbox.
   * Nothing is sent here; the dispatcher delivers the requests.
   */
  async requestQuotes(input: RequestQuotesInput): Promise<QuoteRequest[]> {
    assertMay(this.viewer, 'requestQuotes');
    const tender = await findVisibleTender(this.em, this.viewer, input.tenderId);
    if (!QUOTABLE.includes(tender.status)) {
      throw new DomainError('CONFLICT', `Quotes can be requested while the tender is ${QUOTABLE.join(', ')}; it is ${tender.status}`);
    }
    const problems: FieldProblem[] = [];
    const insurerIds = [...new Set(input.insurerIds)];
    if (insurerIds.length === 0 || insurerIds.length > MAX_INSURERS) problems.push({ parameter: 'insurerIds', message: `name 1 to ${MAX_INSURERS} insurers` });
    if (insurerIds.length !== input.insurerIds.length) problems.push({ parameter: 'insurerIds', message: 'names an insurer twice' });
    const insurers = await this.em.find(Insurer, { id: { $in: insurerIds } });
    const unknown = insurerIds.filter((id) => !insurers.some((insurer) => insurer.id === id));
    if (unknown.length > 0) problems.push({ parameter: 'insurerIds', message: `unknown insurers: ${unknown.join(', ')}` });
    const limits = validateLimits(input.limits, problems);
    const riskInformation = validateRiskInformation(input.riskInformation, tender, problems);
    if (problems.length > 0) throw badInput('The quote request is invalid', problems);

    return this.em.transactional(async (tx) => {
      const now = new Date();
      const requests = insurers.map((insurer) =>
        tx.create(QuoteRequest, {
          tender: tender.id,
          insurer,
          limits,
          riskInformation,
          requestedBy: this.viewer.appId,
          nextAttemptAt: now,
          createdAt: now,
          updatedAt: now,
        }),
      );
      // Native upserts: invitations neither touch the tender's version nor clash with a concurrent request.
      for (const insurer of insurers) {
        await tx.upsert(
          TenderInvitation,
          { id: newId(), tender: tender.id, insurer: insurer.id, createdAt: now },
          { onConflictFields: ['insurer', 'tender'], onConflictAction: 'ignore' },
        );
      }
      await tx.flush();
      return requests;
    });
  }
}
