import type { EntityManager } from '@mikro-orm/core';
import { scopeOf } from '../access';
import type { MessageEventListener } from '../messages';
import { LIVE, QuoteRequest, QuoteRequestStatus, RenewalReminder, deadlineDay, type QuoteEventListener } from '../quotes';
import type { RiskEventListener } from '../risk';
import { Tender, type TenderChangeListener, TenderStatus } from '../tenders';
import { AccessLink } from '../links';
import { MailKind } from './mail-kind';
import { enqueueMail } from './mail-outbox';
import { insurerContacts, tenderAndPersonInCharge } from './mail-recipients';

const REMINDER_NAMES: Record<RenewalReminder, string> = {
  [RenewalReminder.RENEWAL_DUE]: 'due',
  [RenewalReminder.NOTICE_DEADLINE_APPROACHING]: 'approaching',
  [RenewalReminder.NOTICE_DEADLINE_PASSED]: 'passed',
};

/** A mail to the tender's person in charge, in the event's transaction. */
async function toPersonInCharge(
  em: EntityManager,
  tenderId: string,
  event: { key: string; kind: MailKind; at: Date; data?: Record<string, string> },
): Promise<void> {
  const found = await tenderAndPersonInCharge(em, tenderId);
  if (!found) return;
  await enqueueMail(em, {
    key: event.key,
    kind: event.kind,
    occurredAt: event.at,
    data: { tenderId: found.tender.id, product: found.tender.product, ...event.data },
    recipients: found.personInCharge,
  });
}

/** A mail to each contact of an insurer, in the event's transaction. */
async function toInsurer(
  em: EntityManager,
  tenderId: string,
  insurerId: string,
  event: { key: string; kind: MailKind; at: Date; data?: Record<string, string> },
) {
  const [found, insurer] = [await tenderAndPersonInCharge(em, tenderId), await insurerContacts(em, insurerId)];
  if (!found || !insurer || insurer.contacts.length === 0) return;
  await enqueueMail(em, {
    key: event.key,
    kind: event.kind,
    occurredAt: event.at,
    data: {
      tenderId: found.tender.id,
      product: found.tender.product,
      insurerName: insurer.name,
      ...(insurer.manual ? { manual: 'true' } : {}),
      ...event.data,
    },
    recipients: insurer.contacts,
  });
}

/**
 * An invitation to the invited insurer's contacts; a received answer and a coming expiry to the tender's person in
 * charge. The keys are the webhooks' for the same events: one event, one mail per recipient.
 */
export const quoteEventsToMail: QuoteEventListener = async (em, event) => {
  const tenderId = event.tender.id;
  if (event.kind === 'invited') {
    await toInsurer(em, tenderId, event.insurerId, {
      key: `invited:${tenderId}:${event.insurerId}`,
      kind: MailKind.INVITATION,
      at: event.at,
      // A MANUAL insurer's quote page: the mail names its link, the sender derives the URL when it sends.
      ...(event.underwritingLink ? { data: { linkId: event.underwritingLink.id, origin: event.underwritingLink.origin } } : {}),
    });
    return;
  }
  if (event.kind === 'quoteExpiring') {
    await toPersonInCharge(em, tenderId, {
      key: `expiring:${event.quoteRequestId}`,
      kind: MailKind.QUOTE_EXPIRING,
      at: event.at,
      data: {
        quoteRequestId: event.quoteRequestId,
        validUntil: event.validUntil.toISOString(),
        ...(await insurerName(em, event.insurerId)),
      },
    });
    return;
  }
  if (event.kind === 'renewalReminder') {
    await toPersonInCharge(em, tenderId, {
      key: `${event.reminder.toLowerCase()}:${tenderId}:${event.noticeDeadline.getTime()}`,
      kind: MailKind.RENEWAL_REMINDER,
      at: event.at,
      data: { reminder: REMINDER_NAMES[event.reminder], noticeDeadline: deadlineDay(event.noticeDeadline) },
    });
    return;
  }
  if (event.kind !== 'quoteReceived') return;
  // A referral is one answer of several (the final one follows): each is a mail of its own.
  const referral = event.status === QuoteRequestStatus.REFERRED ? `:referred:${event.at.getTime()}` : '';
  await toPersonInCharge(em, tenderId, {
    key: `quote:${event.quoteRequestId}${referral}`,
    kind: MailKind.QUOTE_RECEIVED,
    at: event.at,
    data: { quoteRequestId: event.quoteRequestId, quoteStatus: event.status, ...(await insurerName(em, event.insurerId)) },
  });
  if (event.status !== QuoteRequestStatus.REFERRED) await whenEveryoneAnswered(em, tenderId, event.at);
};

/**
 * Every invited insurer answered: the answer just stored (in this transaction) left none of the tender's quote requests
 * open (LIVE). FAILED and CANCELLED requests count as ended; a failure alone mails nothing (the answer that comes
 * last does). Once per round: the key names how many requests the tender has, so a later invitation (a new round)
 * mails again when it is answered, and the same round reported twice mails once.
 */
async function whenEveryoneAnswered(em: EntityManager, tenderId: string, at: Date): Promise<void> {
  const requests = await em.find(QuoteRequest, { tender: tenderId }, { fields: ['id', 'status'] });
  if (requests.length === 0 || requests.some((request) => LIVE.includes(request.status))) return;
  const quoted = requests.filter((request) => request.status === QuoteRequestStatus.QUOTED).length;
  await toPersonInCharge(em, tenderId, {
    key: `answered:${tenderId}:${requests.length}`,
    kind: MailKind.ALL_ANSWERED,
    at,
    data: { requests: String(requests.length), quoted: String(quoted) },
  });
}

async function insurerName(em: EntityManager, insurerId: string): Promise<{ insurerName?: string }> {
  const insurer = await insurerContacts(em, insurerId);
  return insurer ? { insurerName: insurer.name } : {};
}

/**
 * A submitted risk assessment to the tender's person in charge; a questionnaire link to the customer's address the
 * broker gave, naming the link (the sender derives its URL when it sends: the token is never at rest).
 */
export const riskEventsToMail: RiskEventListener = async (em, event) => {
  if (event.kind === 'questionnaireLinkCreated') {
    const tender = await em.findOne(Tender, { id: event.tenderId }, { populate: ['customer', 'brokerCompany'] });
    if (!tender) return;
    const link = await em.findOneOrFail(AccessLink, { id: event.linkId });
    await enqueueMail(em, {
      key: `questionnaire-link:${event.linkId}`,
      kind: MailKind.QUESTIONNAIRE_LINK,
      occurredAt: event.at,
      data: {
        tenderId: tender.id,
        product: tender.product,
        brokerName: tender.brokerCompany.name,
        linkId: event.linkId,
        origin: event.origin,
        expiresAt: link.expiresAt.toISOString(),
      },
      recipients: [{ email: event.email, name: tender.customer.name, language: event.language }],
    });
    return;
  }
  if (event.kind !== 'assessmentSubmitted') return;
  await toPersonInCharge(em, event.tenderId, {
    key: `risk-assessment:${event.tenderId}:${event.at.getTime()}`,
    kind: MailKind.RISK_ASSESSMENT_SUBMITTED,
    at: event.at,
  });
};

/** The order to cover to the awarded insurer's contacts; its acceptance or decline to the tender's person in charge. */
export const tenderChangesToMail: TenderChangeListener = async (em, change) => {
  const { tender } = change;
  // The insurer's answer to the order, to the tender's person in charge (the insurer is the one who answered).
  if (change.kind === 'coverOrderAccepted' || (change.kind === 'statusChanged' && change.operation === 'declineCoverOrder')) {
    const scope = scopeOf(change.by);
    const accepted = change.kind === 'coverOrderAccepted';
    await toPersonInCharge(em, tender.id, {
      key: `cover-${accepted ? 'accepted' : 'declined'}:${tender.id}:${tender.version}`,
      kind: accepted ? MailKind.COVER_ACCEPTED : MailKind.COVER_DECLINED,
      at: change.at,
      data: {
        ...(scope.kind === 'insurer' ? await insurerName(em, scope.insurerId) : {}),
        ...(accepted ? { inceptionDate: change.inceptionDate } : {}),
      },
    });
    return;
  }
  if (change.kind !== 'statusChanged' || change.to !== TenderStatus.IN_COVERNOTE || !tender.awardedInsurer) return;
  await toInsurer(em, tender.id, tender.awardedInsurer.id, {
    key: `cover:${tender.id}:${tender.version}`,
    kind: MailKind.COVER_ORDERED,
    at: change.at,
  });
};

/**
 * A message in a thread: the insurer's to the tender's person in charge, the broker's side's (internal users among it)
 * to the thread's insurer's contacts, while the insurer still sees the thread. Only that there is one: never its text.
 */
export const messageEventsToMail: MessageEventListener = async (em, event) => {
  const key = `message:${event.messageId}`;
  const data = {
    author: event.authorRole === 'insurer' ? 'insurer' : 'broker',
    ...(event.requestsInformation ? { question: 'true' } : {}),
  };
  if (event.authorRole === 'insurer') {
    await toPersonInCharge(em, event.tenderId, {
      key,
      kind: MailKind.MESSAGE_POSTED,
      at: event.at,
      data: { ...data, ...(await insurerName(em, event.insurerId)) },
    });
    return;
  }
  if (!event.insurerSees) return;
  await toInsurer(em, event.tenderId, event.insurerId, { key, kind: MailKind.MESSAGE_POSTED, at: event.at, data });
};
