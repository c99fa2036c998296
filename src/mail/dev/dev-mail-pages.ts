import { Eta } from 'eta';
import type { CaughtMail } from './dev-mailbox';

const LIST = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Development mail</title></head>
<body>
<main>
<h1>Development mail</h1>
<p>Every mail the gateway sent since it started (the newest <%= it.kept %>), caught in the process: none left this machine.</p>
<% if (it.mails.length === 0) { %><p>No mail yet. Run <code>npm run demo</code>: the invited insurers' contacts are mailed.</p>
<% } else { %><table>
<thead><tr><th>Received</th><th>To</th><th>Subject</th></tr></thead>
<tbody>
<% it.mails.forEach(function (mail) { %><tr><td><%= mail.receivedAt.toISOString() %></td><td><%= mail.to %></td><td><a href="/dev/mail/<%= mail.id %>"><%= mail.subject %></a></td></tr>
<% }) %></tbody>
</table>
<% } %></main>
</body>
</html>
`;

const ONE = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title><%= it.mail.subject %></title></head>
<body>
<main>
<p><a href="/dev/mail">All mail</a></p>
<h1><%= it.mail.subject %></h1>
<dl>
<dt>From</dt><dd><%= it.mail.from %></dd>
<dt>To</dt><dd><%= it.mail.to %></dd>
<% it.mail.headers.forEach(function (header) { %><dt><%= header.name %></dt><dd><%= header.value %></dd>
<% }) %></dl>
<% if (it.mail.html) { %><h2>HTML</h2>
<iframe title="The mail's HTML" sandbox src="/dev/mail/<%= it.mail.id %>/html" width="100%" height="480"></iframe>
<% } %><h2>Plain text</h2>
<pre><%= it.mail.text %></pre>
</main>
</body>
</html>
`;

const eta = new Eta({ autoEscape: true, autoTrim: false });
eta.loadTemplate('@list', LIST);
eta.loadTemplate('@one', ONE);

export const devMailList = (mails: readonly CaughtMail[], kept: number): string => eta.render('@list', { mails, kept });
export const devMailPage = (mail: CaughtMail): string => eta.render('@one', { mail });
