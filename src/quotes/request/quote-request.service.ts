import type { EntityManager } from '@mikro-orm/core';
import { assertMay, type Viewer } from '../../access';
import { newId } from '../../platform/db/ids';
import { DomainError, badInput, type FieldProblem } from '../../platform/errors/domain-error';
import { Insurer, InsurerIntegration } from '../../insurers';
import type { AccessLinks } from '../../links';
import { TenderInvitation, insurersInvited, Tender, findVisibleTender, lockTenderRow } from '../../tenders';
import { LIMITS, isHttpUrl, jsonTextProblems } from '../../platform/validation/rules';
import { RequestQuotesRules } from '../quote-rules';
import { problemsOf, refused } from '../../platform/validation/validate';
import { QuoteRequest, type Limit } from '../quote-request.entity';
import { LIVE, QUOTABLE, QuoteRequestMode, QuoteRequestStatus } from '../quote-request-status';
import { firstStep, freezeAssessment, jsonBytes, planFromAssessment } from './quotes-from-assessment';
import type { QuoteEventListener } from '../quote-events';
import type { RequestQuotesInput } from '../quote.types';
import { createUnderwritingLink } from '../manual/underwriting-links';
import { currentTraceparent } from '../../platform/telemetry/trace-context';
import { AnswerSource, RiskAssessment } from '../../risk';

/** Quotes may be asked for while the tender is open and no cover has been ordered. */
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));
const SPEC_FIELDS = ['turnover', 'type_of_business', 'website_url', 'customer_name'];

/** Rules across limits: each deductible below its insurance sum, no limit twice. */
function checkLimits(limits: RequestQuotesInput['limits'], problems: FieldProblem[]): Limit[] {
  const seen = new Set<string>();
  return limits.map((limit, index) => {
    const at = `limits[${index}]`;
    const wellFormed = !refused(problems, `${at}.deductible`) && !refused(problems, `${at}.insuranceSum`);
    if (wellFormed && limit.deductible >= limit.insuranceSum)
      problems.push({ parameter: `${at}.deductible`, message: 'must be below the insurance sum' });
    const key = `${limit.insuranceSum}/${limit.deductible}`;
    if (seen.has(key)) problems.push({ parameter: at, message: 'repeats an earlier limit' });
    seen.add(key);
    return { insurance_sum: limit.insuranceSum, deductible: limit.deductible };
  });
}

/** Builds spec 2.3 `risk_information` from the input; the field rules are checked before. */
function riskInformationOf(
  input: NonNullable<RequestQuotesInput['riskInformation']>,
  tender: Tender,
  problems: FieldProblem[],
): Record<string, unknown> {
  const additional = input.additional ?? {};
  const clashes = Object.keys(additional).filter((key) => SPEC_FIELDS.includes(key));
  if (clashes.length > 0) problems.push({ parameter: 'riskInformation.additional', message: `must not repeat ${clashes.join(', ')}` });
  if (Buffer.byteLength(JSON.stringify(additional)) > LIMITS.freeJsonBytes) {
    problems.push({ parameter: 'riskInformation.additional', message: `must be at most ${LIMITS.freeJsonBytes / 1024} KiB of JSON` });
  }
  // Free text inside the JSON obeys the one text rule of every free-text field.
  problems.push(...jsonTextProblems(additional, 'riskInformation.additional'));
  const risk: Record<string, unknown> = { ...additional };
  if (input.turnover) {
    if (!refused(problems, 'riskInformation.turnover.currency') && !CURRENCIES.has(input.turnover.currency))
      problems.push({ parameter: 'riskInformation.turnover.currency', message: 'not an ISO 4217 currency' });
    risk.turnover = { amount: input.turnover.amount, currency: input.turnover.currency };
  }
  if (input.typeOfBusiness !== undefined && input.typeOfBusiness !== null) risk.type_of_business = input.typeOfBusiness;
  if (input.websiteUrl !== undefined && input.websiteUrl !== null) {
    if (!refused(problems, 'riskInformation.websiteUrl') && !isHttpUrl(input.websiteUrl))
      problems.push({ parameter: 'riskInformation.websiteUrl', message: 'must be an absolute http(s) URL' });
    risk.website_url = input.websiteUrl;
  }
  const customerName = input.customerName ?? tender.customer.name;
  risk.customer_name = customerName;
  // What reads are priced by (operation-cost.ts): the largest risk information any request may carry.
  if (jsonBytes(risk) > LIMITS.riskInformationBytes) {
    problems.push({ parameter: 'riskInformation', message: `must be at most ${LIMITS.riskInformationBytes / 1024} KiB of JSON in all` });
  }
  return risk;
}

export class QuoteRequestService {
  constructor(
    private readonly em: EntityManager,
    private readonly viewer: Viewer,
    /** Who reacts to quotation events (invitations, received quotes) in their transactions (webhooks). */
    private readonly listeners: readonly QuoteEventListener[],
    /**
     * A MANUAL insurer's request gets the link of its quote page in the same transaction; `origin` is where its URL
     * starts when PUBLIC_URL is unset (the request's own origin).
     */
    private readonly pages: { links: AccessLinks; origin: string },
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
    const problems = problemsOf(RequestQuotesRules, input);
    const insurerIds = [...new Set(input.insurerIds)];
    if (insurerIds.length !== input.insurerIds.length) problems.push({ parameter: 'insurerIds', message: 'names an insurer twice' });
    // In the order asked for: the requests are written, and their problems named (`insurerIds[1]`), in that order.
    const insurers = (await this.em.find(Insurer, { id: { $in: insurerIds } })).sort(
      (a, b) => insurerIds.indexOf(a.id) - insurerIds.indexOf(b.id),
    );
    const unknown = insurerIds.filter((id) => !insurers.some((insurer) => insurer.id === id));
    if (unknown.length > 0) problems.push({ parameter: 'insurerIds', message: `unknown insurers: ${unknown.join(', ')}` });
    const limits = checkLimits(input.limits, problems);
    const given = input.riskInformation ? riskInformationOf(input.riskInformation, tender, problems) : undefined;
    if (problems.length > 0) throw badInput('The quote request is invalid', problems);

    return this.em.transactional(async (tx) => {
      await this.checkRoomFor(tx, tender.id, insurers);
      await refuseUnconfirmedAnswers(tx, tender.id);
      const now = new Date();
      const plans = given
        ? insurers.map((insurer) => ({ insurer, riskInformation: given }))
        : await planFromAssessment(tx, tender, insurers, input.mode ?? QuoteRequestMode.STRICT, now);
      // The question set version stays what the first quote request was made on.
      await freezeAssessment(tx, tender.id, now);
      // An insurer without an API is sent nothing: it hears of the invitation (webhook) and answers through GraphQL.
      const requests = plans.map(({ insurer, riskInformation }) =>
        tx.create(QuoteRequest, {
          tender: tender.id,
          insurer,
          limits,
          riskInformation: riskInformation ?? {},
          riskInformationBytes: riskInformation ? jsonBytes(riskInformation) : 0,
          requestedBy: this.viewer.appId,
          traceparent: currentTraceparent() ?? null,
          ...(riskInformation ? firstStep(insurer, now) : { status: QuoteRequestStatus.AWAITING_INFORMATION, nextAttemptAt: null }),
          createdAt: now,
          updatedAt: now,
        }),
      );
      // An insurer without an API answers on its quote page (docs/quotation-manual.md): its link, made with the request.
      const pageLinks = new Map<string, string>();
      for (const request of requests)
        if (request.insurer.integration === InsurerIntegration.MANUAL)
          pageLinks.set(
            request.insurer.id,
            createUnderwritingLink(tx, this.pages.links, { id: request.id, tenderId: tender.id, createdBy: this.viewer.appId }, now).id,
          );
      await tx.flush();
      const known = await tx.find(
        TenderInvitation,
        { tender: tender.id, insurer: { $in: insurers.map((insurer) => insurer.id) } },
        { fields: ['insurer'] },
      );
      const invited = insurers.filter((insurer) => !known.some((invitation) => invitation.insurer.id === insurer.id));
      // Native upserts: invitations neither touch the tender's version nor clash with a concurrent request.
      for (const insurer of insurers) {
        await tx.upsert(
          TenderInvitation,
          { id: newId(), tender: tender.id, insurer: insurer.id, createdAt: now },
          { onConflictFields: ['insurer', 'tender'], onConflictAction: 'ignore' },
        );
      }
      const about = { id: tender.id, status: tender.status, brokerCompanyId: tender.brokerCompany.id };
      for (const insurer of invited) {
        for (const listener of this.listeners)
          await listener(tx, {
            kind: 'invited',
            tender: about,
            insurerId: insurer.id,
            at: now,
            ...(pageLinks.has(insurer.id) ? { underwritingLink: { id: pageLinks.get(insurer.id)!, origin: this.pages.origin } } : {}),
          });
      }
      // Their tender lists now hold the tender. Last: every request for the insurer's quotes waits for this row's
      // lock until the holder commits (docs/benchmark.md).
      await insurersInvited(
        tx,
        invited.map((insurer) => insurer.id),
      );
      return requests;
    });
  }

  /**
   * The bounds of a tender's quote requests (docs/quotation.md, "Bounds per tender"): one live request per insurer, and
   * LIMITS.quoteRequestsPerTender in all; and none for a tender whose customer was erased. Checked inside the transaction that writes them, one request for the
   * tender at a time, under the tender's row lock (`lockTenderRow`), so each counts what the one before it committed.
   */
  private async checkRoomFor(tx: EntityManager, tenderId: string, insurers: readonly Insurer[]): Promise<void> {
    await lockTenderRow(tx, tenderId);
    // Read under the lock an erasure takes too (privacy/): a request never stores the customer's details after it.
    const [{ erased_at: erasedAt }] = (await tx
      .getConnection()
      .execute('select erased_at from tender where id = ?', [tenderId], 'all', tx.getTransactionContext())) as { erased_at: unknown }[];
    if (erasedAt !== null) {
      throw new DomainError(
        'CONFLICT',
        "The personal data of this tender's customer was erased: its risk information is gone, so no insurer can be asked",
      );
    }
    const live = await tx.find(
      QuoteRequest,
      { tender: tenderId, status: { $in: [...LIVE] }, insurer: { $in: insurers.map((insurer) => insurer.id) } },
      { fields: ['insurer'] },
    );
    if (live.length > 0) {
      const names = insurers.filter((insurer) => live.some((request) => request.insurer.id === insurer.id)).map((insurer) => insurer.name);
      throw new DomainError(
        'CONFLICT',
        `A quote request is still open for ${names.join(', ')}; ask again once it has ended (or close and reopen the tender)`,
        [{ parameter: 'insurerIds', message: `a quote request of this tender is still ${LIVE.join(', ')} for ${names.join(', ')}` }],
      );
    }
    const held = await tx.count(QuoteRequest, { tender: tenderId });
    if (held + insurers.length > LIMITS.quoteRequestsPerTender) {
      throw new DomainError(
        'CONFLICT',
        `A tender holds at most ${LIMITS.quoteRequestsPerTender} quote requests; this one holds ${held}, and ${insurers.length} more were asked for`,
        [
          {
            parameter: 'insurerIds',
            message: `at most ${Math.max(0, LIMITS.quoteRequestsPerTender - held)} more insurers for this tender`,
          },
        ],
      );
    }
  }
}

/**
 * A renewal's answers carried over from last year (CARRIED_OVER) are asked about again: no insurer is asked for a quote
 * until the broker or the customer has confirmed or changed each (ANSWERS_UNCONFIRMED, naming them by pointer).
 */
async function refuseUnconfirmedAnswers(tx: EntityManager, tenderId: string): Promise<void> {
  const assessment = await tx.findOne(RiskAssessment, { tender: tenderId }, { fields: ['sources'] });
  const unconfirmed = (assessment?.sources ?? []).filter((record) => record.source === AnswerSource.CARRIED_OVER);
  if (unconfirmed.length === 0) return;
  throw new DomainError(
    'ANSWERS_UNCONFIRMED',
    `Answers carried over from last year must be confirmed or changed before quotes are requested: ${unconfirmed.map((record) => record.pointer).join(', ')}`,
    [],
    unconfirmed.map((record) => ({
      pointer: record.pointer,
      message: 'carried over from last year: confirm it (saveRiskAnswers confirm) or change it',
    })),
  );
}
