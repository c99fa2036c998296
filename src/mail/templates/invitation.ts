import type { KindTexts } from './kind-texts';

/** To an invited insurer's contacts; a MANUAL insurer is told it answers through the gateway. */
export const invitation: KindTexts = {
  de: {
    subject: 'Einladung zur Angebotsabgabe: <%= it.product %>',
    body: [
      '<%= it.insurerName %> ist eingeladen, ein Angebot für eine Ausschreibung abzugeben.',
      '<% if (it.manual) { %>Sie antworten über das Tender Exchange Gateway: mit einem Angebot, einer Absage oder einer Rückfrage<% if (it.linkId) { %>, auf der Angebotsseite, die der Link unten öffnet. Der Link ist persönlich: Bitte geben Sie ihn nicht weiter<% } %>.<% } else { %>Ihr System erhält die Anfrage über die Schnittstelle.<% } %>',
    ],
    linkLabel: 'Angebotsseite öffnen',
  },
  en: {
    subject: 'Invitation to quote: <%= it.product %>',
    body: [
      '<%= it.insurerName %> is invited to quote on a tender.',
      '<% if (it.manual) { %>You answer through the Tender Exchange gateway: with a quote, a decline or a question<% if (it.linkId) { %>, on the quote page the link below opens. The link is personal: please do not pass it on<% } %>.<% } else { %>Your system receives the request through its API.<% } %>',
    ],
    linkLabel: 'Open the quote page',
  },
};
