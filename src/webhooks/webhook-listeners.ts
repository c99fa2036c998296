import { QuoteRequestStatus, RenewalReminder, type QuoteEventListener } from '../quotes';
import type { DocumentEventListener } from '../documents';
import type { CustomerErasureListener } from '../privacy';
import type { RiskEventListener } from '../risk';
import type { MessageEventListener } from '../messages';
import { type TenderChangeListener, TenderStatus } from '../tenders';
import { WebhookEventType } from './webhook-event-type';
import { enqueueWebhookEvent } from './webhook-outbox';

/**
 * Tender changes as webhook events, in the change's transaction. Every status change goes to everyone who sees the
 * tender (the tender's audience rule: its broker company and its invited insurers; the payload says no more); the order
 * to cover also to the awarded insurer alone; the policy documentation to the broker company.
 */
export const tenderChangesToWebhooks: TenderChangeListener = async (em, change) => {
  const { tender } = change;
  const brokerCompanyId = tender.brokerCompany.id;
  if (change.kind === 'policyDocumentationConfirmed') {
    await enqueueWebhookEvent(em, {
      type: WebhookEventType.POLICY_DOCUMENTATION_CONFIRMED,
      key: `policy-documentation:${tender.id}`,
      occurredAt: change.at,
      data: { tender_id: tender.id, status: tender.status },
      audience: { brokerCompanyId },
    });
    return;
  }
  if (change.kind === 'coverOrderAccepted') {
    await enqueueWebhookEvent(em, {
      type: WebhookEventType.COVER_ACCEPTED,
      key: `cover-accepted:${tender.id}:${tender.version}`,
      occurredAt: change.at,
      data: { tender_id: tender.id, status: tender.status, inception_date: change.inceptionDate },
      audience: { brokerCompanyId },
    });
    return;
  }
  // The version the change gave the tender names the change: a reported change twice is one event.
  const key = `${tender.id}:${tender.version}`;
  const data = { tender_id: tender.id, status: change.to };
  const statusChanged = { type: WebhookEventType.TENDER_STATUS_CHANGED, key: `status:${key}`, occurredAt: change.at, data };
  await enqueueWebhookEvent(em, { ...statusChanged, audience: { seesTender: { id: tender.id, brokerCompanyId } } });
  if (change.operation === 'declineCoverOrder') {
    await enqueueWebhookEvent(em, {
      type: WebhookEventType.COVER_DECLINED,
      key: `cover-declined:${key}`,
      occurredAt: change.at,
      data,
      audience: { brokerCompanyId },
    });
  }
  if (change.to === TenderStatus.IN_COVERNOTE && tender.awardedInsurer) {
    await enqueueWebhookEvent(em, {
      type: WebhookEventType.COVER_ORDERED,
      key: `cover:${key}`,
      occurredAt: change.at,
      data,
      audience: { insurerIds: [tender.awardedInsurer.id] },
    });
  }
};

/**
 * An invitation to the invited insurer; a received answer (quote, decline, referral) to the tender's broker company; a
 * quote's coming and passed expiry to the broker company and the quoting insurer.
 */
export const quoteEventsToWebhooks: QuoteEventListener = async (em, event) => {
  const { tender } = event;
  if (event.kind === 'invited') {
    await enqueueWebhookEvent(em, {
      type: WebhookEventType.TENDER_INVITED,
      key: `invited:${tender.id}:${event.insurerId}`,
      occurredAt: event.at,
      data: { tender_id: tender.id, status: tender.status },
      audience: { insurerIds: [event.insurerId] },
    });
    return;
  }
  if (event.kind === 'subjectivityResponded' || event.kind === 'subjectivityDecided' || event.kind === 'subjectivityOverdue') {
    await subjectivityToWebhooks(em, event);
    return;
  }
  if (event.kind === 'coverOrderOverdue') {
    await enqueueWebhookEvent(em, {
      type: WebhookEventType.COVER_ORDER_OVERDUE,
      key: `cover-order-overdue:${tender.id}:${event.orderedAt.getTime()}`,
      occurredAt: event.at,
      data: { tender_id: tender.id, status: tender.status, ordered_at: event.orderedAt.toISOString() },
      audience: { brokerCompanyId: tender.brokerCompanyId, insurerIds: [event.insurerId] },
    });
    return;
  }
  if (event.kind === 'renewalReminder') {
    // The broker company alone: the renewal is its to act on, and nothing of it reaches an insurer.
    await enqueueWebhookEvent(em, {
      type: REMINDER_EVENTS[event.reminder],
      key: `${event.reminder.toLowerCase()}:${tender.id}:${event.noticeDeadline.getTime()}`,
      occurredAt: event.at,
      data: { tender_id: tender.id, status: tender.status, notice_deadline: event.noticeDeadline.toISOString() },
      audience: { brokerCompanyId: tender.brokerCompanyId },
    });
    return;
  }
  if (event.kind === 'nonRenewalNotified') {
    await enqueueWebhookEvent(em, {
      type: WebhookEventType.POLICY_NON_RENEWAL_NOTIFIED,
      key: `non-renewal:${tender.id}:${event.noticeDeadline.getTime()}`,
      occurredAt: event.at,
      data: { tender_id: tender.id, status: tender.status },
      audience: { insurerIds: [event.insurerId] },
    });
    return;
  }
  if (event.kind === 'quoteExpiring' || event.kind === 'quoteExpired') {
    // One event, the same for the broker company and the quoting insurer.
    const expired = event.kind === 'quoteExpired';
    await enqueueWebhookEvent(em, {
      type: expired ? WebhookEventType.QUOTE_EXPIRED : WebhookEventType.QUOTE_EXPIRING,
      key: `${expired ? 'expired' : 'expiring'}:${event.quoteRequestId}`,
      occurredAt: event.at,
      data: {
        tender_id: tender.id,
        status: tender.status,
        quote_request_id: event.quoteRequestId,
        valid_until: event.validUntil.toISOString(),
      },
      audience: { brokerCompanyId: tender.brokerCompanyId, insurerIds: [event.insurerId] },
    });
    return;
  }
  if (event.kind !== 'quoteReceived') return;
  // A referral is one answer of several (the final one follows): each is an event of its own.
  const referral = event.status === QuoteRequestStatus.REFERRED ? `:referred:${event.at.getTime()}` : '';
  await enqueueWebhookEvent(em, {
    type: WebhookEventType.QUOTE_RECEIVED,
    key: `quote:${event.quoteRequestId}${referral}`,
    occurredAt: event.at,
    data: { tender_id: tender.id, status: tender.status, quote_request_id: event.quoteRequestId, quote_status: event.status },
    audience: { brokerCompanyId: tender.brokerCompanyId },
  });
};

const REMINDER_EVENTS: Record<RenewalReminder, WebhookEventType> = {
  [RenewalReminder.RENEWAL_DUE]: WebhookEventType.RENEWAL_DUE,
  [RenewalReminder.NOTICE_DEADLINE_APPROACHING]: WebhookEventType.NOTICE_DEADLINE_APPROACHING,
  [RenewalReminder.NOTICE_DEADLINE_PASSED]: WebhookEventType.NOTICE_DEADLINE_PASSED,
};

type SubjectivityEvent = Extract<
  Parameters<QuoteEventListener>[1],
  { kind: 'subjectivityResponded' | 'subjectivityDecided' | 'subjectivityOverdue' }
>;

/**
 * A response to the quoting insurer, a decision to the tender's broker company, an overdue subjectivity to both. Ids
 * and the status only: each reads the text with its own rights.
 */
async function subjectivityToWebhooks(em: Parameters<QuoteEventListener>[0], event: SubjectivityEvent): Promise<void> {
  const { tender } = event;
  const data = {
    tender_id: tender.id,
    status: tender.status,
    subjectivity_id: event.subjectivityId,
    subjectivity_status: event.subjectivityStatus,
  };
  if (event.kind === 'subjectivityOverdue') {
    await enqueueWebhookEvent(em, {
      type: WebhookEventType.SUBJECTIVITY_OVERDUE,
      key: `subjectivity-overdue:${event.subjectivityId}`,
      occurredAt: event.at,
      data: { ...data, due_at: event.dueAt.toISOString() },
      audience: { brokerCompanyId: tender.brokerCompanyId, insurerIds: [event.insurerId] },
    });
    return;
  }
  const responded = event.kind === 'subjectivityResponded';
  await enqueueWebhookEvent(em, {
    type: responded ? WebhookEventType.SUBJECTIVITY_RESPONDED : WebhookEventType.SUBJECTIVITY_DECIDED,
    key: `subjectivity:${event.stepId}`,
    occurredAt: event.at,
    data,
    audience: responded ? { insurerIds: [event.insurerId] } : { brokerCompanyId: tender.brokerCompanyId },
  });
}

/** A document became visible: to the tender's broker company, and to the invited insurers the access policy lets see it. */
export const documentEventsToWebhooks: DocumentEventListener = async (em, event) => {
  const base = {
    type: WebhookEventType.DOCUMENT_ADDED,
    key: `document:${event.documentId}`,
    occurredAt: event.at,
    data: { tender_id: event.tender.id, status: event.tender.status as TenderStatus, document_id: event.documentId, kind: event.kind },
  };
  await enqueueWebhookEvent(em, { ...base, audience: { brokerCompanyId: event.tender.brokerCompanyId } });
  if (event.insurerIds.length > 0) await enqueueWebhookEvent(em, { ...base, audience: { insurerIds: event.insurerIds } });
};

/**
 * A customer was erased: each broker company of its tenders hears of it, by ids only (its tenders among them). Once
 * per erasure: erasing again (which removes what the tenders held since) is told again.
 */
export const customerErasuresToWebhooks: CustomerErasureListener = async (em, event) => {
  for (const [brokerCompanyId, tenderIds] of event.tendersByBrokerCompany) {
    await enqueueWebhookEvent(em, {
      type: WebhookEventType.CUSTOMER_ERASED,
      key: `customer-erased:${event.customerId}:${brokerCompanyId}:${event.at.getTime()}`,
      occurredAt: event.at,
      data: { customer_id: event.customerId, tender_ids: tenderIds },
      audience: { brokerCompanyId },
    });
  }
};

/**
 * A submitted risk assessment to the tender's broker company (its other systems learn that the answers are complete);
 * a published question set to the insurers that require questions of its product. Ids only.
 */
export const riskEventsToWebhooks: RiskEventListener = async (em, event) => {
  if (event.kind === 'assessmentSubmitted') {
    await enqueueWebhookEvent(em, {
      type: WebhookEventType.RISK_ASSESSMENT_SUBMITTED,
      key: `risk-assessment:${event.tenderId}:${event.at.getTime()}`,
      occurredAt: event.at,
      data: { tender_id: event.tenderId, status: event.tenderStatus },
      audience: { brokerCompanyId: event.brokerCompanyId },
    });
    return;
  }
  if (event.kind !== 'questionSetPublished' || event.insurerIds.length === 0) return;
  await enqueueWebhookEvent(em, {
    type: WebhookEventType.QUESTION_SET_PUBLISHED,
    key: `question-set:${event.product}:${event.version}`,
    occurredAt: event.at,
    data: { product: event.product, version: event.version, breaking: event.breaking },
    audience: { insurerIds: event.insurerIds },
  });
};

/**
 * A message posted in a clarification thread to the tender's broker company and to the thread's insurer (not once the
 * tender is redacted for it: CLOSED, or won by another). Ids only: each reads the message with its own rights.
 */
export const messageEventsToWebhooks: MessageEventListener = async (em, event) => {
  await enqueueWebhookEvent(em, {
    type: WebhookEventType.MESSAGE_POSTED,
    key: `message:${event.messageId}`,
    occurredAt: event.at,
    data: { tender_id: event.tenderId, status: event.tenderStatus, insurer_id: event.insurerId, message_id: event.messageId },
    audience: { brokerCompanyId: event.brokerCompanyId, insurerIds: event.insurerSees ? [event.insurerId] : [] },
  });
};
