import type { EntityManager } from '@mikro-orm/core';
import { assertMay, Role, type RequestContext } from '../../access';
import { DomainError, badInput } from '../../platform/errors/domain-error';
import { LIMITS } from '../../platform/validation/rules';
import { problemsOf } from '../../platform/validation/validate';
import { Tender, lockTenderRow } from '../../tenders';
import { Document, DocumentState } from '../../documents';
import type { MessageContext } from '../message-context';
import { TenderMessage } from './tender-message.entity';
import { PostMessageRules } from './message-rules';
import { insurerSeesDocument } from './document-sight';
import { assertInvited, insurerSeesThread, insurerViewer, tenderOfThreads } from './thread-access';

export interface PostMessage {
  tenderId: string;
  insurerId: string;
  text: string;
  documentIds?: readonly string[] | null;
  requestsInformation?: boolean | null;
}

/** The documents named that are not the tender's, not available, or not seen by the thread's insurer: each a problem. */
async function documentProblems(em: EntityManager, tender: Tender, insurerId: string, documentIds: readonly string[]) {
  if (documentIds.length === 0) return [];
  const found = await em.find(Document, { id: { $in: [...documentIds] }, tender: tender.id }, { populate: ['quoteRequest'] });
  const byId = new Map(found.map((document) => [document.id, document]));
  const insurer = insurerViewer(insurerId);
  return documentIds.flatMap((id, index) => {
    const document = byId.get(id);
    const seen = document && document.state === DocumentState.AVAILABLE && insurerSeesDocument(insurer, tender, document);
    return seen ? [] : [{ parameter: `documentIds[${index}]`, message: `no document ${id} of this tender that the insurer sees` }];
  });
}

/**
 * Posts a message in the thread of the tender and the insurer: by the tender's broker, that insurer or an internal
 * user, while the insurer is invited and the tender is not redacted for it (CLOSED, or won by another). The message
 * and its event are written in one transaction, under the tender's lock as an erasure takes it.
 */
export async function postMessage(context: MessageContext, input: PostMessage): Promise<TenderMessage> {
  const { em, viewer } = context;
  assertMay(viewer, 'postTenderMessage');
  const documentIds = input.documentIds ?? [];
  const problems = problemsOf(PostMessageRules, { text: input.text, documentIds }, 'parameter');
  if (problems.length > 0) throw badInput('The message is invalid', problems);
  const tender = await tenderOfThreads(em, viewer, input.tenderId, input.insurerId);
  await assertInvited(em, tender, input.insurerId);
  if (!insurerSeesThread(tender, input.insurerId))
    throw new DomainError('CONFLICT', `Tender ${tender.id} is ${tender.status}: its thread with this insurer takes no more messages`);
  const refused = await documentProblems(em, tender, input.insurerId, documentIds);
  if (refused.length > 0) throw badInput('The message names documents the insurer does not see', refused);

  const now = context.clock.now();
  return em.transactional(async (tx) => {
    await lockTenderRow(tx, tender.id);
    // Under the lock, as the tender stands now: a close or an erasure since the checks above wins.
    const fresh = await tx.findOneOrFail(
      Tender,
      { id: tender.id },
      { fields: ['id', 'status', 'awardedInsurer', 'brokerCompany', 'erasedAt'], refresh: true },
    );
    if (fresh.erasedAt)
      throw new DomainError('CONFLICT', "The personal data of this tender's customer was erased: it takes no more messages");
    if (!insurerSeesThread(fresh, input.insurerId))
      throw new DomainError('CONFLICT', `Tender ${tender.id} is ${fresh.status}: its thread with this insurer takes no more messages`);
    const held = await tx.count(TenderMessage, { tender: tender.id, insurer: input.insurerId });
    if (held >= LIMITS.messagesPerThread)
      throw new DomainError('CONFLICT', `The thread holds ${LIMITS.messagesPerThread} messages, the most one thread holds`);
    const message = tx.create(TenderMessage, {
      tender: tender.id,
      insurer: input.insurerId,
      authorRole: viewer.role,
      authorAppId: viewer.appId,
      text: input.text,
      documentIds: [...documentIds],
      requestsInformation: input.requestsInformation ?? false,
      createdAt: now,
    });
    await tx.flush();
    for (const listener of context.messageEvents) {
      await listener(tx, {
        kind: 'messagePosted',
        messageId: message.id,
        tenderId: tender.id,
        tenderStatus: fresh.status,
        brokerCompanyId: tender.brokerCompany.id,
        insurerId: input.insurerId,
        authorRole: viewer.role,
        requestsInformation: message.requestsInformation,
        insurerSees: insurerSeesThread(fresh, input.insurerId),
        at: now,
      });
    }
    return message;
  });
}

/**
 * The tender's threads the viewer reads, oldest first: one insurer's, or (for the broker and internal users) every
 * thread when no insurer is named; an insurer always its own.
 */
export async function threadMessages(context: RequestContext, tenderId: string, insurerId?: string | null): Promise<TenderMessage[]> {
  const { em, viewer, rows } = context;
  assertMay(viewer, 'tenderMessages');
  const tender = await tenderOfThreads(em, viewer, tenderId, insurerId);
  const insurer = viewer.role === Role.INSURER ? viewer.insurerId! : insurerId;
  return rows.read(
    () =>
      em.find(TenderMessage, { tender: tender.id, ...(insurer ? { insurer } : {}) }, { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
    (messages) => messages.length,
  );
}
