import { MailKind } from '../mail-kind';
import type { MailLanguage } from '../mail-message.entity';

/** Each kind of mail named for its recipient (the unsubscribe page). */
export const EVENT_TEXTS: Record<MailLanguage, Record<Exclude<MailKind, MailKind.DIGEST>, string>> = {
  de: {
    [MailKind.INVITATION]: 'Einladungen zur Angebotsabgabe',
    [MailKind.QUOTE_RECEIVED]: 'Antworten der Versicherer',
    [MailKind.ALL_ANSWERED]: 'alle Versicherer haben geantwortet',
    [MailKind.QUOTE_EXPIRING]: 'ablaufende Angebote',
    [MailKind.RISK_ASSESSMENT_SUBMITTED]: 'eingereichte Risikoerfassungen',
    [MailKind.MESSAGE_POSTED]: 'neue Nachrichten',
    [MailKind.COVER_ORDERED]: 'beauftragte Deckungen',
    [MailKind.COVER_ACCEPTED]: 'angenommene Deckungen',
    [MailKind.COVER_DECLINED]: 'abgelehnte Deckungen',
    [MailKind.QUESTIONNAIRE_LINK]: 'Links zum Fragebogen',
    [MailKind.RENEWAL_REMINDER]: 'Erinnerungen an Kündigungsfristen',
  },
  en: {
    [MailKind.INVITATION]: 'invitations to quote',
    [MailKind.QUOTE_RECEIVED]: "insurers' answers",
    [MailKind.ALL_ANSWERED]: 'every insurer answered',
    [MailKind.QUOTE_EXPIRING]: 'quotes expiring',
    [MailKind.RISK_ASSESSMENT_SUBMITTED]: 'submitted risk assessments',
    [MailKind.MESSAGE_POSTED]: 'new messages',
    [MailKind.COVER_ORDERED]: 'cover ordered',
    [MailKind.COVER_ACCEPTED]: 'cover accepted',
    [MailKind.COVER_DECLINED]: 'cover declined',
    [MailKind.QUESTIONNAIRE_LINK]: 'questionnaire links',
    [MailKind.RENEWAL_REMINDER]: 'renewal reminders',
  },
};
