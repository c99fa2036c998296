import type { KindTexts } from './kind-texts';

/** To the tender's person in charge: the risk answers are complete (the answers themselves are never in a mail). */
export const riskAssessmentSubmitted: KindTexts = {
  de: {
    subject: 'Risikoerfassung abgeschlossen: <%= it.product %>',
    body: ['Die Risikofragen der Ausschreibung sind vollständig beantwortet und eingereicht.'],
  },
  en: {
    subject: 'Risk assessment submitted: <%= it.product %>',
    body: ["The tender's risk questions are answered in full and submitted."],
  },
};
