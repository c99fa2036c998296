import type { KindTexts } from './kind-texts';

/** To the tender's person in charge: a renewal is due, its notice deadline approaches, or it passed (docs/renewals.md). */
export const renewalReminder: KindTexts = {
  de: {
    subject:
      "<%= it.reminder === 'passed' ? 'Kündigungsfrist abgelaufen' : it.reminder === 'approaching' ? 'Kündigungsfrist endet bald' : 'Verlängerung steht an' %>: <%= it.product %>",
    body: [
      "<%= it.reminder === 'passed' ? 'Die Kündigungsfrist endete am' : 'Die Kündigungsfrist endet am' %> <%= it.noticeDeadline %> (Ende des Tages, Europe/Berlin).",
    ],
  },
  en: {
    subject:
      "<%= it.reminder === 'passed' ? 'Notice deadline passed' : it.reminder === 'approaching' ? 'Notice deadline approaching' : 'Renewal due' %>: <%= it.product %>",
    body: [
      "<%= it.reminder === 'passed' ? 'The notice deadline was' : 'The notice deadline is' %> <%= it.noticeDeadline %> (end of the day, Europe/Berlin).",
    ],
  },
};
