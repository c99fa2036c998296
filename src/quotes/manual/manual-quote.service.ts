import type { EntityManager } from '@mikro-orm/core';
import { assertMay, scopeOf, type Viewer } from '../../access';
import { DomainError, badInput, notFound } from '../../platform/errors/domain-error';
import { TenderStatus } from '../../tenders';
import { readQuoteAnswer, type AnswerProblem } from '../quote-answer';
import { statusOfAnswer, storeOptions } from '../quote-answer-store';
import type { QuoteEventListener } from '../quote-events';
import { QUOTABLE, QuoteRequestStatus, QuoteSource } from '../quote-request-status';
import { QuoteRequest } from '../quote-request.entity';
import type { SubmitManualQuoteInput } from './manual-quote.types';

/** States a manual answer may be given in: awaiting it, or referred (the underwriter's final word follows). */
const ANSWERABLE = [QuoteRequestStatus.AWAITING_MANUAL, QuoteRequestStatus.REFERRED];

/** An answer problem named as the GraphQL input names it: `/quote_options/2/subjectivities/0/text` → `options[2].subjectivities[0].text`. */
function parameterOf({ pointer, message }: AnswerProblem): { parameter: string; message: string } {
  const names: Record<string, string> = { quote_options: 'options', valid_until: 'validUntil', due_at: 'dueAt' };
  const parts = pointer.split('/').slice(1);
  if (parts.length === 0) return { parameter: 'options', message };
  const parameter = parts
    .map((part) => names[part] ?? part)
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
  const field = /^(insurance_sum|deductible|premium) /.exec(message);
  // An option's own field is named in the message by the option rules ("premium must be ...").
  if (field && /^options\[\d+\]$/.test(parameter)) {
    const camel = { insurance_sum: 'insuranceSum', deductible: 'deductible', premium: 'premium' }[field[1]]!;
    return { parameter: `${parameter}.${camel}`, message: message.slice(field[0].length) };
  }
  return { parameter, message };
}

/**
 * The answer of an insurer without an API (docs/quotation-manual.md), entered by the insurer's own
 * client for its own request or by an internal user on its behalf, and read by the same rules as an API insurer's
 * quote. Stored with who entered it; the broker hears of it as of any quote.
 */
export async function submitManualQuote(
  em: EntityManager,
  viewer: Viewer,
  listeners: readonly QuoteEventListener[],
  zone: string,
  input: SubmitManualQuoteInput,
): Promise<{ id: string; tenderId: string }> {
  assertMay(viewer, 'submitManualQuote');
  const scope = scopeOf(viewer);
  const request = await em.findOne(
    QuoteRequest,
    { id: input.quoteRequestId, ...(scope.kind === 'insurer' ? { insurer: scope.insurerId } : {}) },
    { populate: ['tender'] },
  );
  if (!request) throw notFound(`No quote request has the id ${JSON.stringify(input.quoteRequestId)}`);
  if (request.source !== QuoteSource.MANUAL)
    throw new DomainError('CONFLICT', 'The request went to the insurer system (source API): its answer comes from there');
  // Before anything is written: only while cover may still be ordered (as for an insurer system's quote, whose request
  // the order or the close cancelled; a request of a tender ordered before that rule still waits here).
  if (!QUOTABLE.includes(request.tender.status))
    throw new DomainError(
      'CONFLICT',
      request.tender.status === TenderStatus.CLOSED
        ? 'The tender is closed: no answer is taken'
        : `Cover was ordered on this tender (it is ${request.tender.status}): no answer is taken`,
    );
  if (!ANSWERABLE.includes(request.status))
    throw new DomainError('CONFLICT', `The request is ${request.status}; an answer is taken while it is ${ANSWERABLE.join(' or ')}`);
  const now = new Date();
  const body = {
    decision: input.decision ?? null,
    valid_until: input.validUntil ?? null,
    currency: input.currency ?? null,
    reason: input.reason ?? null,
    quote_options: input.options.map((option) => ({
      insurance_sum: option.insuranceSum,
      deductible: option.deductible,
      premium: option.premium,
      subjectivities:
        option.subjectivities?.map((subjectivity) => ({
          text: subjectivity.text,
          stage: subjectivity.stage,
          due_at: subjectivity.dueAt ?? null,
        })) ?? null,
    })),
  };
  const { problems, answer } = readQuoteAnswer(body, request.limits, { zone, now, earliestValidity: now, refuseControls: true });
  if (!answer) throw badInput('The quote is invalid', problems.map(parameterOf));
  const status = statusOfAnswer(answer, now);
  await em.transactional(async (tx) => {
    // Conditional on the state read above: a close of the tender (which cancels it) or another answer meanwhile wins.
    const stored = await tx.nativeUpdate(
      QuoteRequest,
      { id: request.id, status: request.status },
      {
        status,
        quotedAt: now,
        updatedAt: now,
        validUntil: answer.validUntil,
        currency: answer.currency,
        underwriterReason: answer.reason,
        quoteNote: answer.note,
        answeredBy: viewer.appId,
      },
    );
    if (stored !== 1)
      throw new DomainError(
        'CONFLICT',
        'The request changed meanwhile (answered, or cancelled by a close or an order); nothing was stored',
      );
    const tender = { id: request.tender.id, status: request.tender.status, brokerCompanyId: request.tender.brokerCompany.id };
    const event = { kind: 'quoteReceived' as const, tender, quoteRequestId: request.id, insurerId: request.insurer.id, status, at: now };
    for (const listener of listeners) await listener(tx, event);
    await storeOptions(tx, { id: request.id, tenderId: request.tender.id, insurerId: request.insurer.id }, answer.options);
  });
  return { id: request.id, tenderId: request.tender.id };
}
