import type { KindTexts } from './kind-texts';

/** A recipient's mails of a day (DAILY_DIGEST), listed by their subjects: one mail instead of many. */
export const digest: KindTexts = {
  de: {
    subject: 'Ihre Tagesübersicht: <%= it.count %> Benachrichtigung<% if (it.count !== 1) { %>en<% } %>',
    body: ['Seit der letzten Übersicht gab es diese Benachrichtigungen:'],
  },
  en: {
    subject: 'Your daily digest: <%= it.count %> notification<% if (it.count !== 1) { %>s<% } %>',
    body: ['Since the last digest there were these notifications:'],
  },
};
