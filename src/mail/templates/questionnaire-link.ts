import type { KindTexts } from './kind-texts';

/** To the customer: the broker asks for the risk answers; the link opens the questionnaire (no answers in the mail). */
export const questionnaireLink: KindTexts = {
  de: {
    subject: 'Ihr Risikofragebogen: <%= it.product %>',
    body: [
      '<%= it.brokerName %> bittet Sie, die Risikofragen für Ihre Versicherung zu beantworten.',
      'Der Link unten öffnet Ihren Fragebogen. Er ist persönlich: Bitte geben Sie ihn nicht weiter. Er gilt bis zum <%= it.expiresAt %>.',
    ],
    linkLabel: 'Fragebogen öffnen',
  },
  en: {
    subject: 'Your risk questionnaire: <%= it.product %>',
    body: [
      '<%= it.brokerName %> asks you to answer the risk questions for your insurance.',
      'The link below opens your questionnaire. It is personal: please do not pass it on. It is valid until <%= it.expiresAt %>.',
    ],
    linkLabel: 'Open the questionnaire',
  },
};
