import type { KindTexts } from './kind-texts';

/** To the tender's person in charge: the insurer of the ordered option accepted the order to cover. */
export const coverAccepted: KindTexts = {
  de: {
    subject: 'Deckung angenommen: <%= it.product %>',
    body: [
      '<%= it.insurerName || "Der Versicherer" %> hat die beauftragte Deckung angenommen<% if (it.inceptionDate) { %>, Beginn am <%= it.inceptionDate %><% } %>.',
    ],
  },
  en: {
    subject: 'Cover accepted: <%= it.product %>',
    body: [
      '<%= it.insurerName || "The insurer" %> accepted the order to cover<% if (it.inceptionDate) { %>, incepting on <%= it.inceptionDate %><% } %>.',
    ],
  },
};

/** To the tender's person in charge: the insurer declined the order; the tender is back in negotiation. */
export const coverDeclined: KindTexts = {
  de: {
    subject: 'Deckung abgelehnt: <%= it.product %>',
    body: [
      '<%= it.insurerName || "Der Versicherer" %> hat die beauftragte Deckung abgelehnt. Die Ausschreibung ist wieder in Verhandlung; den Grund finden Sie im Verlauf.',
    ],
  },
  en: {
    subject: 'Cover declined: <%= it.product %>',
    body: [
      '<%= it.insurerName || "The insurer" %> declined the order to cover. The tender is back in negotiation; the reason is in its history.',
    ],
  },
};
