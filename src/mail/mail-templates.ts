import { Eta } from 'eta';
import type { MailLanguage } from './mail-message.entity';
import { MailKind } from './mail-kind';
import { allAnswered } from './templates/all-answered';
import { coverAccepted, coverDeclined } from './templates/cover-answered';
import { coverOrdered } from './templates/cover-ordered';
import { digest } from './templates/digest';
import { invitation } from './templates/invitation';
import type { KindTexts } from './templates/kind-texts';
import { FRAME, htmlLayout, textLayout } from './templates/layout';
import { messagePosted } from './templates/message-posted';
import { quoteExpiring } from './templates/quote-expiring';
import { quoteReceived } from './templates/quote-received';
import { riskAssessmentSubmitted } from './templates/risk-assessment-submitted';
import { questionnaireLink } from './templates/questionnaire-link';
import { renewalReminder } from './templates/renewal-reminder';

const KINDS: Record<MailKind, KindTexts> = {
  [MailKind.INVITATION]: invitation,
  [MailKind.QUOTE_RECEIVED]: quoteReceived,
  [MailKind.ALL_ANSWERED]: allAnswered,
  [MailKind.QUOTE_EXPIRING]: quoteExpiring,
  [MailKind.RISK_ASSESSMENT_SUBMITTED]: riskAssessmentSubmitted,
  [MailKind.MESSAGE_POSTED]: messagePosted,
  [MailKind.COVER_ORDERED]: coverOrdered,
  [MailKind.COVER_ACCEPTED]: coverAccepted,
  [MailKind.COVER_DECLINED]: coverDeclined,
  [MailKind.QUESTIONNAIRE_LINK]: questionnaireLink,
  [MailKind.RENEWAL_REMINDER]: renewalReminder,
  [MailKind.DIGEST]: digest,
};

// Text first, escaped once where it meets HTML: the paragraphs are plain text, the HTML frame escapes every value.
const plain = new Eta({ autoEscape: false, autoTrim: false });
const html = new Eta({ autoEscape: true, autoTrim: false });
plain.loadTemplate('@text', textLayout);
html.loadTemplate('@html', htmlLayout);
for (const [kind, texts] of Object.entries(KINDS)) {
  for (const [language, { subject, body }] of Object.entries(texts)) {
    plain.loadTemplate(`@${kind}.${language}.subject`, subject);
    body.forEach((paragraph, at) => plain.loadTemplate(`@${kind}.${language}.${at}`, paragraph));
  }
}

export interface RenderedMail {
  subject: string;
  html: string;
  text: string;
}

const isKind = (template: string): template is MailKind => Object.prototype.hasOwnProperty.call(KINDS, template);

const longDate = (locale: string, iso: string, timeStyle?: 'short') =>
  new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle, timeZone: 'Europe/Berlin' }).format(new Date(iso));

/** One held mail as a digest lists it: which template, and its recorded data. */
export interface DigestItem {
  template: string;
  data: Record<string, string>;
}

/** The data of a mail, as its templates read it: dates in the recipient's language and Berlin's time. */
function templateData(data: Record<string, string>, language: MailLanguage) {
  const { dateLocale } = FRAME[language];
  return {
    ...data,
    manual: data.manual === 'true',
    question: data.question === 'true',
    validUntil: data.validUntil ? longDate(dateLocale, data.validUntil, 'short') : undefined,
    expiresAt: data.expiresAt ? longDate(dateLocale, data.expiresAt) : undefined,
  };
}

/** A subject: one line, never carrying a header break, whatever the data holds. */
const subjectOf = (template: MailKind, language: MailLanguage, it: object): string =>
  plain
    .render(`@${template}.${language}.subject`, it)
    .replace(/[\r\n\t]+/g, ' ')
    .trim();

/** A digest's items, each by its own subject and tender (unknown templates, from a newer version, are left out). */
function digestItems(data: Record<string, string>, language: MailLanguage): { subject: string; tenderId: string }[] {
  const items = JSON.parse(data.items ?? '[]') as DigestItem[];
  return items.flatMap((item) =>
    isKind(item.template) && item.template !== MailKind.DIGEST
      ? [{ subject: subjectOf(item.template, language, templateData(item.data, language)), tenderId: item.data.tenderId ?? '' }]
      : [],
  );
}

/**
 * A mail of its kind in the recipient's language, from its recorded data; the link is `pageLink`, a page's own the
 * sender derived for this mail (a questionnaire's, an underwriter's), else the gateway's (PUBLIC_URL) if known; the
 * unsubscribe link, when given, closes the mail.
 */
export function renderMail(
  template: string,
  recipient: { name: string; language: MailLanguage },
  data: Record<string, string>,
  links: { publicUrl: string | null; unsubscribe?: string; pageLink?: string },
): RenderedMail {
  if (!isKind(template)) throw new Error(`no mail template named ${template}`);
  const { language } = recipient;
  const frame = FRAME[language];
  const items = template === MailKind.DIGEST ? digestItems(data, language) : undefined;
  const it = { ...templateData(data, language), count: items?.length };
  const subject = subjectOf(template, language, it);
  const paragraphs = KINDS[template][language].body.map((_, at) => plain.render(`@${template}.${language}.${at}`, it).trim());
  const frameData = {
    language,
    subject,
    greeting: frame.greeting(recipient.name),
    paragraphs,
    items,
    labels: { ...frame.labels, link: (links.pageLink && KINDS[template][language].linkLabel) || frame.labels.link },
    product: data.product,
    tenderId: data.tenderId,
    link: links.pageLink ?? (links.publicUrl ? `${links.publicUrl}/` : null),
    unsubscribe: links.unsubscribe,
    closing: frame.closing,
  };
  return { subject, html: html.render('@html', frameData), text: plain.render('@text', frameData) };
}
