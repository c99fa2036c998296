/**
 * The frame every mail shares, in HTML and plain text: the greeting, the kind's paragraphs, the tender's product and
 * id, the link to the gateway. In HTML every value is escaped (eta's autoEscape): the paragraphs arrive as text.
 */
export const htmlLayout = `<!DOCTYPE html>
<html lang="<%= it.language %>">
<head><meta charset="utf-8"><title><%= it.subject %></title></head>
<body style="font-family: sans-serif; line-height: 1.5">
<p><%= it.greeting %></p>
<% it.paragraphs.forEach(function (paragraph) { %><p><%= paragraph %></p>
<% }) %><% if (it.items) { %><ul>
<% it.items.forEach(function (item) { %><li><%= item.subject %> (<%= it.labels.tender %> <%= item.tenderId %>)</li>
<% }) %></ul>
<% } %><% if (it.tenderId) { %><table>
<tr><th style="text-align: left"><%= it.labels.product %></th><td><%= it.product %></td></tr>
<tr><th style="text-align: left"><%= it.labels.tender %></th><td><%= it.tenderId %></td></tr>
</table>
<% } %><% if (it.link) { %><p><a href="<%= it.link %>"><%= it.labels.link %></a></p>
<% } %><p><%= it.closing %></p>
<% if (it.unsubscribe) { %><p style="font-size: smaller"><a href="<%= it.unsubscribe %>"><%= it.labels.unsubscribe %></a></p>
<% } %></body>
</html>
`;

export const textLayout = `<%~ it.greeting %>

<% it.paragraphs.forEach(function (paragraph) { %><%~ paragraph %>

<% }) %><% if (it.items) { %><% it.items.forEach(function (item) { %>- <%~ item.subject %> (<%~ it.labels.tender %> <%~ item.tenderId %>)
<% }) %>
<% } %><% if (it.tenderId) { %><%~ it.labels.product %>: <%~ it.product %>
<%~ it.labels.tender %>: <%~ it.tenderId %>
<% } %><% if (it.link) { %>
<%~ it.labels.link %>: <%~ it.link %>
<% } %>
<%~ it.closing %>
<% if (it.unsubscribe) { %>
<%~ it.labels.unsubscribe %>: <%~ it.unsubscribe %>
<% } %>`;

/** The frame's words in each language. */
export const FRAME = {
  de: {
    greeting: (name: string) => (name ? `Guten Tag ${name},` : 'Guten Tag,'),
    closing: 'Diese Nachricht wurde vom Tender Exchange Gateway automatisch versandt.',
    labels: {
      product: 'Produkt',
      tender: 'Ausschreibung',
      link: 'Zum Tender Exchange Gateway',
      unsubscribe: 'Diese Benachrichtigungen abbestellen',
    },
    dateLocale: 'de-DE',
  },
  en: {
    greeting: (name: string) => (name ? `Hello ${name},` : 'Hello,'),
    closing: 'This message was sent automatically by the Tender Exchange gateway.',
    labels: {
      product: 'Product',
      tender: 'Tender',
      link: 'Open the Tender Exchange gateway',
      unsubscribe: 'Unsubscribe from these notifications',
    },
    dateLocale: 'en-GB',
  },
};
