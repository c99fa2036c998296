import type { EntityManager } from '@mikro-orm/core';
import { newId } from '../platform/db/ids';
import type { KeptOption, QuoteAnswer } from './quote-answer';
import { QuoteOption } from './quote-option.entity';
import { QuoteDecision, QuoteRequestStatus } from './quote-request-status';

/** The status an answer gives its request: a quote already past its validity is stored EXPIRED. */
export function statusOfAnswer(answer: QuoteAnswer, now: Date): QuoteRequestStatus {
  if (answer.decision === QuoteDecision.DECLINED) return QuoteRequestStatus.DECLINED;
  if (answer.decision === QuoteDecision.REFERRED) return QuoteRequestStatus.REFERRED;
  return answer.validUntil !== null && answer.validUntil < now ? QuoteRequestStatus.EXPIRED : QuoteRequestStatus.QUOTED;
}

/** The options of an answer, in one insert: they are new rows and nothing else changes. */
export async function storeOptions(em: EntityManager, quoteRequestId: string, options: readonly KeptOption[]): Promise<void> {
  if (options.length === 0) return;
  await em.insertMany(
    QuoteOption,
    options.map((option, position) => ({
      id: newId(),
      quoteRequest: quoteRequestId,
      position,
      insuranceSum: option.insurance_sum,
      deductible: option.deductible,
      premium: option.premium,
      subjectivities: option.subjectivities,
    })),
  );
}
