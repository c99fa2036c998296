import { Eta } from 'eta';
import type { MailLanguage } from '../mail-message.entity';
import { MailKind } from '../mail-kind';
import { EVENT_TEXTS } from './event-names';

/** What the page shows: the question (a form that POSTs), the answer, or that the link is not valid. */
type PageState = 'ask' | 'done' | 'invalid';

const PAGE = `<!DOCTYPE html>
<html lang="<%= it.language %>">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title><%= it.title %></title></head>
<body>
<main>
<h1><%= it.title %></h1>
<p><%= it.text %></p>
<% if (it.state === 'ask') { %><form method="post" action="">
<input type="hidden" name="List-Unsubscribe" value="One-Click">
<button type="submit"><%= it.button %></button>
</form>
<% } %></main>
</body>
</html>
`;

const eta = new Eta({ autoEscape: true, autoTrim: false });
eta.loadTemplate('@page', PAGE);

const WORDS = {
  de: {
    ask: { title: 'Benachrichtigungen abbestellen', text: (what: string) => `Sie erhalten keine E-Mails mehr für: ${what}.` },
    done: { title: 'Abbestellt', text: (what: string) => `Sie erhalten keine E-Mails mehr für: ${what}.` },
    invalid: { title: 'Link ungültig', text: () => 'Dieser Abmeldelink ist nicht gültig.' },
    button: 'Abbestellen',
    all: 'alle Benachrichtigungen',
  },
  en: {
    ask: { title: 'Unsubscribe from notifications', text: (what: string) => `You will receive no more mail for: ${what}.` },
    done: { title: 'Unsubscribed', text: (what: string) => `You will receive no more mail for: ${what}.` },
    invalid: { title: 'Link not valid', text: () => 'This unsubscribe link is not valid.' },
    button: 'Unsubscribe',
    all: 'every notification',
  },
};

/** The page a mail's unsubscribe link shows in a browser: German or English, no script, one button that POSTs. */
export function unsubscribePage(language: MailLanguage, state: PageState, kind?: MailKind): string {
  const words = WORDS[language];
  const what = !kind || kind === MailKind.DIGEST ? words.all : EVENT_TEXTS[language][kind];
  return eta.render('@page', { language, state, title: words[state].title, text: words[state].text(what), button: words.button });
}
