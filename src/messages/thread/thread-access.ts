import type { EntityManager } from '@mikro-orm/core';
import { Role, type Viewer } from '../../access';
import { forbidden, notFound } from '../../platform/errors/domain-error';
import { TenderInvitation, findVisibleTender, isRedactedFor, type Tender } from '../../tenders';

/** A viewer standing for the thread's insurer: what the insurer sees is asked as if it asked. */
export const insurerViewer = (insurerId: string): Viewer => ({ role: Role.INSURER, insurerId }) as Viewer;

/** Whether the insurer still sees its thread on the tender: not once the tender is redacted for it (CLOSED, or lost). */
export const insurerSeesThread = (tender: Pick<Tender, 'status' | 'awardedInsurer'>, insurerId: string): boolean =>
  !isRedactedFor(insurerViewer(insurerId), tender.status, tender.awardedInsurer?.id);

/**
 * The tender whose threads the viewer reads or writes, or NOT_FOUND: the tender's audience rule (findVisibleTender),
 * and for an insurer not a tender redacted for it, as for its documents. An insurer names its own thread only
 * (FORBIDDEN otherwise).
 */
export async function tenderOfThreads(em: EntityManager, viewer: Viewer, tenderId: string, insurerId?: string | null): Promise<Tender> {
  const tender = await findVisibleTender(em, viewer, tenderId);
  if (viewer.role === Role.INSURER && insurerId && insurerId !== viewer.insurerId)
    throw forbidden("An insurer reads and writes its own thread only, not another insurer's");
  if (viewer.role === Role.INSURER && !insurerSeesThread(tender, viewer.insurerId!)) throw notFound(`Tender ${tenderId} not found`);
  return tender;
}

/** NOT_FOUND unless the insurer is invited to the tender: a thread is between a tender's broker and an invited insurer. */
export async function assertInvited(em: EntityManager, tender: Tender, insurerId: string): Promise<void> {
  const invitation = await em.findOne(TenderInvitation, { tender: tender.id, insurer: insurerId }, { fields: ['id'] });
  if (!invitation) throw notFound(`Insurer ${insurerId} is not invited to tender ${tender.id}: it has no thread there`);
}
