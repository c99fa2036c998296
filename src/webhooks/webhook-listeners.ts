import { QuoteRequestStatus, type QuoteEventListener } from '../quotes';
import type { DocumentEventListener } from '../documents';
import type { CustomerErasureListener } from '../privacy';
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
  // The version the change gave the tender names the change: a reported change twice is one event.
  const key = `${tender.id}:${tender.version}`;
  const data = { tender_id: tender.id, status: change.to };
  const statusChanged = { type: WebhookEventType.TENDER_STATUS_CHANGED, key: `status:${key}`, occurredAt: change.at, data };
  await enqueueWebhookEvent(em, { ...statusChanged, audience: { seesTender: { id: tender.id, brokerCompanyId } } });
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
  if (event.kind !== 'quoteReceived') {
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
