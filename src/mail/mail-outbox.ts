import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { newId } from '../platform/db/ids';
import { MailMessage, MailStatus, type MailLanguage } from './mail-message.entity';
import { MailKind, type MailData } from './mail-kind';
import { MailDelivery, type MailPreference } from './preferences/mail-preference.entity';
import { addressKey, preferencesOf } from './preferences/mail-preferences';

export interface MailRecipient {
  email: string;
  name: string;
  language: MailLanguage;
}

interface MailEvent {
  /** What makes the event itself: the same key, reported twice, is one event (as the webhooks' keys). */
  key: string;
  kind: MailKind;
  occurredAt: Date;
  /** A tender's mail names its tender; the digest names its mails' (in its data). */
  data: MailData | Record<string, string>;
  recipients: readonly MailRecipient[];
}

const digest = (text: string, length: number) => createHash('sha256').update(text).digest('hex').slice(0, length);

/**
 * The mail's `Message-ID`: from the event and the recipient's address alone, so the same mail is recorded once and
 * named alike at every attempt. Hashed: neither the address nor the event's ids show in it.
 */
export const messageIdOf = (eventKey: string, email: string): string =>
  `<${digest(eventKey, 32)}.${digest(addressKey(email), 16)}@tender-exchange>`;

/**
 * Records a mail per recipient in the caller's transaction: the mail is recorded with the change that caused it, or not
 * at all, and once per event and recipient (a unique `messageId`; a second report inserts nothing). Sent after the
 * commit by the MailSender. A recipient who opted out of the kind gets nothing recorded; one who asked for a daily
 * digest gets the mail HELD for it (never sent alone), unless it carries a page's link.
 */
export async function enqueueMail(em: EntityManager, event: MailEvent): Promise<void> {
  const seen = new Set<string>();
  // The digest is what a recipient asked for: it is sent whatever the preferences say.
  const preferences =
    event.kind === MailKind.DIGEST
      ? new Map<string, MailPreference>()
      : await preferencesOf(
          em,
          event.recipients.map((one) => one.email),
        );
  const rows = event.recipients.flatMap((recipient) => {
    const messageId = messageIdOf(event.key, recipient.email);
    const chosen = preferences.get(addressKey(recipient.email));
    if (seen.has(messageId) || (chosen && !chosen.events.includes(event.kind))) return [];
    seen.add(messageId);
    // A mail carrying a page's link (a questionnaire's, an underwriter's) goes at once: a digest lists no links.
    const held = chosen?.delivery === MailDelivery.DAILY_DIGEST && !event.data.linkId;
    return [
      {
        id: newId(),
        messageId,
        recipientAddress: recipient.email,
        recipientName: recipient.name,
        language: recipient.language,
        tenderId: typeof event.data.tenderId === 'string' ? event.data.tenderId : null,
        template: event.kind,
        data: { ...event.data },
        status: held ? MailStatus.HELD : MailStatus.PENDING,
        attempts: 0,
        nextAttemptAt: held ? null : event.occurredAt,
        createdAt: event.occurredAt,
      },
    ];
  });
  if (rows.length === 0) return;
  await em.upsertMany(MailMessage, rows, { onConflictFields: ['messageId'], onConflictAction: 'ignore' });
}
