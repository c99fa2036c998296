import type { KindTexts } from './kind-texts';

/** To the tender's person in charge: no quote request of the round is open any more. */
export const allAnswered: KindTexts = {
  de: {
    subject: 'Alle Versicherer haben geantwortet: <%= it.product %>',
    body: ['Alle eingeladenen Versicherer haben auf die Anfragen geantwortet: <%= it.quoted %> von <%= it.requests %> mit einem Angebot.'],
  },
  en: {
    subject: 'Every insurer answered: <%= it.product %>',
    body: ['Every invited insurer answered the quote requests: <%= it.quoted %> of <%= it.requests %> with a quote.'],
  },
};
