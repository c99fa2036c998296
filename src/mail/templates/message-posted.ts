import type { KindTexts } from './kind-texts';

/** A message in a clarification thread, to the other side: only that there is one, never its text. */
export const messagePosted: KindTexts = {
  de: {
    subject: '<% if (it.question) { %>Rückfrage<% } else { %>Neue Nachricht<% } %>: <%= it.product %>',
    body: [
      '<% if (it.author === "insurer") { %><%= it.insurerName %> hat<% } else { %>Der Makler hat<% } %> <% if (it.question) { %>eine Rückfrage<% } else { %>eine Nachricht<% } %> zur Ausschreibung geschrieben.',
      'Sie lesen und beantworten sie im Tender Exchange Gateway.',
    ],
  },
  en: {
    subject: '<% if (it.question) { %>Question<% } else { %>New message<% } %>: <%= it.product %>',
    body: [
      '<% if (it.author === "insurer") { %><%= it.insurerName %> wrote<% } else { %>The broker wrote<% } %> <% if (it.question) { %>a question<% } else { %>a message<% } %> about the tender.',
      'You read and answer it in the Tender Exchange gateway.',
    ],
  },
};
