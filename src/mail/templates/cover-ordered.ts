import type { KindTexts } from './kind-texts';

/** To the awarded insurer's contacts: the broker ordered cover on its quote. */
export const coverOrdered: KindTexts = {
  de: {
    subject: 'Deckung beauftragt: <%= it.product %>',
    body: ['Der Makler hat die Deckung auf Grundlage des Angebots von <%= it.insurerName %> beauftragt.'],
  },
  en: {
    subject: 'Cover ordered: <%= it.product %>',
    body: ['The broker ordered cover on the quote of <%= it.insurerName %>.'],
  },
};
