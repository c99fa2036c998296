import { raw, type EntityManager } from '@mikro-orm/core';
import type { Viewer } from '../../access';
import { newId } from '../../platform/db/ids';
import { notFound } from '../../platform/errors/domain-error';
import { QuoteCallbackBody } from '../quote-rules';
import { parseBody } from '../../platform/validation/validate';
import { EarlyCallback } from './early-callback.entity';
import { InsurerCheck } from '../onboarding/insurer-check.entity';
import { QuoteRequestStatus } from '../quote-request-status';
import { QuoteRequest } from '../quote-request.entity';

/**
 * How long a callback for an id the gateway does not know yet stays parked, waiting for the acknowledgement
 * that names it: longer than any acknowledgement takes (a call is QUOTE_TIMEOUT_MS at most, and the insurer
 * calls back only after it accepted the request), short enough that stray ids do not pile up.
 */
export const EARLY_CALLBACK_TTL_MS = 15 * 60_000;

const MARK_AVAILABLE = `update quote_request set status = '${QuoteRequestStatus.AVAILABLE}', callback_received_at = ?, next_attempt_at = ?, attempts = 0, updated_at = ?
  where insurer_id = ? and insurer_reference = ? and status in ('${QuoteRequestStatus.PROCESSING}', '${QuoteRequestStatus.REFERRED}')`;

/**
 * PROCESSING → AVAILABLE for the insurer's id, due for fetching now; false when it is not PROCESSING (any more).
 * A REFERRED request waits for a further callback the same way: its next answer is fetched once more.
 * Every callback runs it, so it is one fixed statement, not an ORM update (docs/benchmark.md).
 */
async function markAvailable(em: EntityManager, insurerId: string, insurerReference: string, receivedAt: Date): Promise<boolean> {
  const platform = em.getPlatform();
  const now = platform.processDateProperty(new Date());
  const changed = (await em
    .getConnection()
    .execute(
      MARK_AVAILABLE,
      [platform.processDateProperty(receivedAt), now, now, insurerId, insurerReference],
      'run',
      em.getTransactionContext(),
    )) as {
    affectedRows: number;
  };
  return changed.affectedRows > 0;
}

/** Honours a callback that arrived before the acknowledgement, once the acknowledgement is stored. */
export async function claimEarlyCallback(em: EntityManager, insurerId: string, insurerReference: string): Promise<boolean> {
  // An expired one is no callback any more, whether or not it has been swept yet.
  const early = await em.findOne(EarlyCallback, {
    insurer: insurerId,
    insurerReference,
    receivedAt: { $gte: new Date(Date.now() - EARLY_CALLBACK_TTL_MS) },
  });
  if (!early) return false;
  const promoted = await markAvailable(em, insurerId, insurerReference, early.receivedAt);
  if (promoted) await em.nativeDelete(EarlyCallback, { id: early.id });
  return promoted;
}

/**
 * A callback for the id of an onboarding check in progress (insurer-check.service.ts): counted on the check's
 * row, nothing else. False when no unexpired check of this insurer has that id.
 */
async function countCheckCallback(em: EntityManager, insurerId: string, insurerReference: string, now: Date): Promise<boolean> {
  const check = { insurer: insurerId, insurerReference, expiresAt: { $gt: now } };
  const counted = await em.nativeUpdate(InsurerCheck, check, { callbacks: raw('callbacks + 1'), lastCallbackAt: now });
  if (counted === 0) return false;
  await em.nativeUpdate(InsurerCheck, { ...check, firstCallbackAt: null }, { firstCallbackAt: now });
  return true;
}

/** Onboarding checks of this insurer still waiting for their acknowledgement: their callbacks may come first. */
const unacknowledgedChecks = (em: EntityManager, insurerId: string, now: Date) =>
  em.count(InsurerCheck, { insurer: insurerId, insurerReference: null, expiresAt: { $gt: now } });

export const parseCallback = (body: unknown): string => parseBody(QuoteCallbackBody, body, 'The callback').quote_request_id;

/**
 * Spec 4.5: the insurer says a quote is ready. Idempotent, and it never calls the insurer: the dispatcher
 * fetches the quote afterwards. Returns whether there is new work for the dispatcher.
 */
export async function receiveCallback(em: EntityManager, viewer: Viewer, insurerReference: string): Promise<boolean> {
  const insurerId = viewer.insurerId!;
  const findRequest = () => em.findOne(QuoteRequest, { insurer: insurerId, insurerReference }, { fields: ['id', 'status'] });
  const honour = (request: Pick<QuoteRequest, 'status'>) =>
    (request.status === QuoteRequestStatus.PROCESSING || request.status === QuoteRequestStatus.REFERRED) &&
    markAvailable(em, insurerId, insurerReference, new Date());

  // The usual case first, in one statement: a PROCESSING request of this insurer becomes AVAILABLE.
  if (await markAvailable(em, insurerId, insurerReference, new Date())) return true;
  const request = await findRequest();
  if (request) return honour(request);
  const now = new Date();
  // An onboarding check's id: no quote request, nothing for the dispatcher; the check counts the callback.
  if (await countCheckCallback(em, insurerId, insurerReference, now)) return false;
  if (await em.count(EarlyCallback, { insurer: insurerId, insurerReference })) return false; // parked already
  // Unknown id: it may belong to a request (or an onboarding check) whose acknowledgement is still on its way
  // back to us. Parked callbacks live EARLY_CALLBACK_TTL_MS; expired ones are swept here, by the insurer's own
  // next callback.
  await em.nativeDelete(EarlyCallback, { insurer: insurerId, receivedAt: { $lt: new Date(now.getTime() - EARLY_CALLBACK_TTL_MS) } });
  // There cannot be more genuine early callbacks than unacknowledged requests and checks, which bounds what is parked.
  const unacknowledged =
    (await em.count(QuoteRequest, { insurer: insurerId, status: QuoteRequestStatus.QUEUED })) +
    (await unacknowledgedChecks(em, insurerId, now));
  // The acknowledgement may have been stored since the first look (another instance, another connection).
  const acknowledged = await findRequest();
  if (acknowledged) return honour(acknowledged);
  if (unacknowledged === 0) {
    // So may a check's: its id is stored before the check stops counting as unacknowledged.
    if (await countCheckCallback(em, insurerId, insurerReference, now)) return false;
    throw notFound(`No quote request of this insurer has the id ${insurerReference}`);
  }
  const parked = await em.find(EarlyCallback, { insurer: insurerId }, { orderBy: { receivedAt: 'asc', id: 'asc' }, fields: ['id'] });
  // At the bound, the oldest parked callback gives way: a stray id never blocks a genuine one, and a genuine
  // one is parked for a moment only (its acknowledgement is in flight), so it is the newest, not the oldest.
  const evict = parked.slice(0, Math.max(0, parked.length - unacknowledged + 1)).map((entry) => entry.id);
  if (evict.length > 0) await em.nativeDelete(EarlyCallback, { id: { $in: evict } });
  await em.upsert(
    EarlyCallback,
    { id: newId(), insurer: insurerId, insurerReference, receivedAt: now },
    { onConflictFields: ['insurer', 'insurerReference'], onConflictAction: 'ignore' },
  );
  // The acknowledgement may be stored between our look and the insert: either its transaction sees this
  // callback, or this claim sees its PROCESSING row (waiting for its lock if need be).
  return claimEarlyCallback(em, insurerId, insurerReference);
}
