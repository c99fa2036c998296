import type { MailLanguage } from '../mail-message.entity';

/**
 * One kind of mail in each language: its subject and paragraphs, eta templates of the mail's data (`it`), and the words
 * of its link when it carries a page's own (a questionnaire) rather than the gateway's.
 */
export type KindTexts = Record<MailLanguage, { subject: string; body: string[]; linkLabel?: string }>;
