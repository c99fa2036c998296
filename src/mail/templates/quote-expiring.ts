import type { KindTexts } from './kind-texts';

/** To the tender's person in charge: a quote's validity ends soon. */
export const quoteExpiring: KindTexts = {
  de: {
    subject: 'Angebot läuft bald ab: <%= it.product %>',
    body: ['Das Angebot von <%= it.insurerName %> ist gültig bis <%= it.validUntil %>.'],
  },
  en: {
    subject: 'Quote expiring soon: <%= it.product %>',
    body: ['The quote of <%= it.insurerName %> is valid until <%= it.validUntil %>.'],
  },
};
