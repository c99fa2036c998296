/** The mails the gateway sends, one template each (templates/). */
export enum MailKind {
  INVITATION = 'invitation',
  QUOTE_RECEIVED = 'quote-received',
  ALL_ANSWERED = 'all-answered',
  QUOTE_EXPIRING = 'quote-expiring',
  RISK_ASSESSMENT_SUBMITTED = 'risk-assessment-submitted',
  MESSAGE_POSTED = 'message-posted',
  COVER_ORDERED = 'cover-ordered',
  COVER_ACCEPTED = 'cover-accepted',
  COVER_DECLINED = 'cover-declined',
  QUESTIONNAIRE_LINK = 'questionnaire-link',
  /** A renewal reminder to the tender's person in charge: due, the notice deadline approaching, or passed. */
  RENEWAL_REMINDER = 'renewal-reminder',
  /** The day's mails of a recipient who asked for a daily digest: not an event of its own, never opted out of alone. */
  DIGEST = 'digest',
}

/** The kinds a recipient chooses among (notification preferences, unsubscribe): every event's, not the digest. */
export const EVENT_KINDS: readonly MailKind[] = Object.values(MailKind).filter((kind) => kind !== MailKind.DIGEST);

/**
 * What a mail's template is given: ids and what its recipient may see of the tender, nothing else (no risk answers,
 * no documents, no prices, no message text: the link leads to them, behind the recipient's own access).
 */
export interface MailData {
  tenderId: string;
  product: string;
  insurerName?: string;
  quoteRequestId?: string;
  /** A received answer: QUOTED, DECLINED, REFERRED, EXPIRED. */
  quoteStatus?: string;
  /** ISO timestamp: when a quote's validity ends. */
  validUntil?: string;
  /** An accepted order's inception date, `YYYY-MM-DD`. */
  inceptionDate?: string;
  /** 'true' when the invited insurer answers through the gateway (MANUAL) rather than its own system. */
  manual?: string;
  /** A page's capability link the mail carries: its id only; the sender derives the URL when it sends. */
  linkId?: string;
  /** Where the link's URL starts when PUBLIC_URL is unset: the origin its maker reached the gateway at. */
  origin?: string;
  brokerName?: string;
  /** ISO timestamp: when the link ends. */
  expiresAt?: string;
  /** Every invited insurer answered: how many requests of the round, and how many of them quoted (as text). */
  requests?: string;
  quoted?: string;
  /** A posted message: who wrote it, `insurer` or `broker` (the broker's side, internal users among it). */
  author?: string;
  /** 'true' when the message asks for information. */
  question?: string;
  /** A renewal reminder: `due`, `approaching` or `passed`. */
  reminder?: string;
  /** The notice deadline's day (YYYY-MM-DD, Europe/Berlin). */
  noticeDeadline?: string;
}
