import type { EntityManager } from '@mikro-orm/core';
import { newId } from '../platform/db/ids';
import type { KeptOption, QuoteAnswer } from './quote-answer';
import { QuoteOption } from './quote-option.entity';
import { QuoteDecision, QuoteRequestStatus, SubjectivityStatus } from './quote-request-status';
import { TrackedSubjectivity } from './subjectivities/subjectivity.entity';

/** The status an answer gives its request: a quote already past its validity is stored EXPIRED. */
export function statusOfAnswer(answer: QuoteAnswer, now: Date): QuoteRequestStatus {
  if (answer.decision === QuoteDecision.DECLINED) return QuoteRequestStatus.DECLINED;
  if (answer.decision === QuoteDecision.REFERRED) return QuoteRequestStatus.REFERRED;
  return answer.validUntil !== null && answer.validUntil < now ? QuoteRequestStatus.EXPIRED : QuoteRequestStatus.QUOTED;
}

/**
 * The options of an answer, in one insert: they are new rows and nothing else changes. Each subjectivity becomes a
 * tracked one too (OPEN, subjectivities/), which the broker responds to and the insurer decides on.
 */
export async function storeOptions(
  em: EntityManager,
  request: { id: string; tenderId: string; insurerId: string },
  options: readonly KeptOption[],
): Promise<void> {
  if (options.length === 0) return;
  const rows = options.map((option, position) => ({
    id: newId(),
    quoteRequest: request.id,
    position,
    insuranceSum: option.insurance_sum,
    deductible: option.deductible,
    premium: option.premium,
    subjectivities: option.subjectivities,
  }));
  await em.insertMany(QuoteOption, rows);
  const now = new Date();
  const tracked = rows.flatMap((row) =>
    (row.subjectivities ?? []).map((subjectivity, position) => ({
      id: newId(),
      tender: request.tenderId,
      quoteRequest: request.id,
      insurer: request.insurerId,
      quoteOption: row.id,
      position,
      stage: subjectivity.stage,
      text: subjectivity.text,
      dueAt: subjectivity.dueAt ? new Date(subjectivity.dueAt) : null,
      status: SubjectivityStatus.OPEN,
      createdAt: now,
      updatedAt: now,
    })),
  );
  if (tracked.length > 0) await em.insertMany(TrackedSubjectivity, tracked);
}
