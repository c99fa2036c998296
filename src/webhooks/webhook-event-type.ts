import { registerEnumType } from 'type-graphql';

/** The events a partner may subscribe to (docs/webhooks.md says who receives which). */
export enum WebhookEventType {
  TENDER_INVITED = 'tender.invited',
  TENDER_STATUS_CHANGED = 'tender.status_changed',
  QUOTE_RECEIVED = 'quote.received',
  QUOTE_EXPIRING = 'quote.expiring',
  QUOTE_EXPIRED = 'quote.expired',
  COVER_ORDERED = 'cover.ordered',
  COVER_ACCEPTED = 'cover.accepted',
  COVER_DECLINED = 'cover.declined',
  COVER_ORDER_OVERDUE = 'cover_order.overdue',
  SUBJECTIVITY_RESPONDED = 'subjectivity.responded',
  SUBJECTIVITY_DECIDED = 'subjectivity.decided',
  SUBJECTIVITY_OVERDUE = 'subjectivity.overdue',
  POLICY_DOCUMENTATION_CONFIRMED = 'policy_documentation.confirmed',
  RENEWAL_DUE = 'renewal.due',
  NOTICE_DEADLINE_APPROACHING = 'notice_deadline.approaching',
  NOTICE_DEADLINE_PASSED = 'notice_deadline.passed',
  POLICY_NON_RENEWAL_NOTIFIED = 'policy.non_renewal_notified',
  DOCUMENT_ADDED = 'document.added',
  CUSTOMER_ERASED = 'customer.erased',
  RISK_ASSESSMENT_SUBMITTED = 'risk_assessment.submitted',
  QUESTION_SET_PUBLISHED = 'question_set.published',
  MESSAGE_POSTED = 'message.posted',
}

registerEnumType(WebhookEventType, { name: 'WebhookEventType', description: 'A tender event a webhook endpoint may subscribe to.' });

export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = Object.values(WebhookEventType);

export enum WebhookDeliveryStatus {
  /** Waiting for its first or next attempt. */
  PENDING = 'PENDING',
  /** The endpoint answered 2xx. */
  DELIVERED = 'DELIVERED',
  /** Every attempt of the retry schedule failed, or the endpoint answered 410 Gone, or its address is not allowed. */
  FAILED = 'FAILED',
}

registerEnumType(WebhookDeliveryStatus, { name: 'WebhookDeliveryStatus' });
