import type { KindTexts } from './kind-texts';

/** To the tender's person in charge: an insurer answered. */
export const quoteReceived: KindTexts = {
  de: {
    subject: 'Antwort von <%= it.insurerName %>: <%= it.product %>',
    body: ['<%= it.insurerName %> hat auf die Anfrage geantwortet (<%= it.quoteStatus %>).'],
  },
  en: {
    subject: 'Answer from <%= it.insurerName %>: <%= it.product %>',
    body: ['<%= it.insurerName %> answered the quote request (<%= it.quoteStatus %>).'],
  },
};
