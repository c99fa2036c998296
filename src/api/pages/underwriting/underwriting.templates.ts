/**
 * The underwriter's quote page's templates (eta, every value escaped): the page with its forms, and its parts. `it.t`
 * holds the language's words, `it.u` this page's own (`t.underwriting`).
 */

/** The error summary at the top of a refused form: each problem a link to its field. */
const ERROR_SUMMARY = `<% if (it.summary.length > 0 || it.general.length > 0) { %><div class="error-summary" id="error-summary" role="alert" tabindex="-1" aria-labelledby="error-summary-title">
<h2 id="error-summary-title"><%= it.t.errorSummary %></h2>
<ul>
<% it.general.forEach(function (text) { %><li><%= text %></li>
<% }) %><% it.summary.forEach(function (item) { %><li><a href="#<%= item.id %>"><%= item.text %></a></li>
<% }) %></ul>
</div>
<% } %>`;

/**
 * One text field with its label, hint and error: `f` is { name, id, label, value, hint?, error?, type?, inputmode?,
 * maxlength?, textarea?, autocomplete? }; aria-describedby names the hint and the error.
 */
export const UNDERWRITING_FIELD = `<% var f = it.f; var described = [f.hint ? f.id + '-hint' : '', f.error ? f.id + '-error' : ''].filter(Boolean).join(' '); var attributes = (described ? ' aria-describedby="' + described + '"' : '') + (f.error ? ' aria-invalid="true"' : ''); %><div class="field<%= f.error ? ' has-error' : '' %>">
<label for="<%= f.id %>"><%= f.label %></label>
<% if (f.hint) { %><span class="hint" id="<%= f.id %>-hint"><%= f.hint %></span>
<% } %><% if (f.error) { %><span class="error-message" id="<%= f.id %>-error"><%= f.error %></span>
<% } %><% if (f.textarea) { %><textarea id="<%= f.id %>" name="<%= f.name %>" rows="4"<% if (f.maxlength) { %> maxlength="<%= f.maxlength %>"<% } %><%~ attributes %>><%= f.value %></textarea>
<% } else { %><input id="<%= f.id %>" name="<%= f.name %>" type="<%= f.type || 'text' %>" value="<%= f.value %>"<% if (f.inputmode) { %> inputmode="<%= f.inputmode %>"<% } %><% if (f.maxlength) { %> maxlength="<%= f.maxlength %>"<% } %><% if (f.autocomplete) { %> autocomplete="<%= f.autocomplete %>"<% } %><%~ attributes %>><% if (f.unit) { %><span class="unit"><%= f.unit %></span><% } %>
<% } %></div>
`;

/** A select with its label and error: `f` is { name, id, label, value, options: [{ value, label }], error? }. */
export const UNDERWRITING_SELECT = `<% var f = it.f; %><div class="field<%= f.error ? ' has-error' : '' %>">
<label for="<%= f.id %>"><%= f.label %></label>
<% if (f.error) { %><span class="error-message" id="<%= f.id %>-error"><%= f.error %></span>
<% } %><select id="<%= f.id %>" name="<%= f.name %>"<% if (f.error) { %> aria-describedby="<%= f.id %>-error" aria-invalid="true"<% } %>>
<% f.options.forEach(function (option) { %><option value="<%= option.value %>"<% if (option.value === f.value) { %> selected<% } %>><%= option.label %></option>
<% }) %></select>
</div>
`;

/** An answer of the risk information: a value, a group (`children`) or a list (`items`). */
export const UNDERWRITING_ANSWER = `<% var a = it.a; %><dt><%= a.label %></dt>
<% if (a.children) { %><dd><dl class="summary">
<% a.children.forEach(function (child) { %><%~ include('@underwriting-answer', { a: child }) %><% }) %></dl></dd>
<% } else if (a.items) { %><dd><% if (a.items.length === 0) { %>–<% } %><% a.items.forEach(function (item) { %><dl class="summary">
<%~ include('@underwriting-answer', { a: item }) %></dl>
<% }) %></dd>
<% } else { %><dd><%= a.value %></dd>
<% } %>`;

/** The quote that was sent: its decision, validity, options and reason (read-only). */
const ANSWER_SUMMARY = `<section class="uw-section" aria-labelledby="answer-title">
<h2 id="answer-title"><%= it.u.answerTitle %></h2>
<p class="notice" role="status"><%= it.answer.statusText %></p>
<dl class="facts">
<% if (it.answer.quotedAt) { %><dt><%= it.u.answeredAt %></dt><dd><%= it.answer.quotedAt %></dd>
<% } %><% if (it.answer.validUntil) { %><dt><%= it.u.validUntil %></dt><dd><%= it.answer.validUntil %></dd>
<% } %><% if (it.answer.reason) { %><dt><%= it.u.reason %></dt><dd class="uw-text"><%= it.answer.reason %></dd>
<% } %></dl>
<% if (it.answer.options.length > 0) { %><table class="uw-table">
<caption><%= it.u.sentOptions %></caption>
<thead><tr><th scope="col"><%= it.u.insuranceSum %></th><th scope="col"><%= it.u.deductible %></th><th scope="col"><%= it.u.premium %></th><th scope="col"><%= it.u.subjectivities %></th></tr></thead>
<tbody>
<% it.answer.options.forEach(function (option) { %><tr><td><%= option.insuranceSum %></td><td><%= option.deductible %></td><td><%= option.premium %></td><td><% if (option.subjectivities.length === 0) { %>–<% } else { %><ul class="uw-plain"><% option.subjectivities.forEach(function (s) { %><li><%= s.stage %>: <%= s.text %></li><% }) %></ul><% } %></td></tr>
<% }) %></tbody>
</table>
<% } %></section>
`;

/**
 * The quote's subjectivities as they stand (docs/lifecycle.md, "Binding"), per option: stage, text, status, due date,
 * the broker's latest response and the history of steps; where a decision is allowed, a form for it (radio buttons
 * in a fieldset, a reason), each subjectivity's fields with ids of their own.
 */
const SUBJECTIVITIES = `<section class="uw-section" aria-labelledby="subjectivities-title">
<h2 id="subjectivities-title"><%= it.u.subjectivitiesTitle %></h2>
<p><%= it.u.subjectivitiesIntro %></p>
<% it.subjectivities.forEach(function (option) { %><h3><%= option.heading %><% if (option.ordered) { %> (<%= it.u.orderedOption %>)<% } %></h3>
<% option.items.forEach(function (s) { %><div class="uw-subjectivity" id="<%= s.anchor %>" tabindex="-1">
<h4><%= s.name %></h4>
<dl class="facts">
<dt><%= it.u.subjectivity %></dt><dd class="uw-text"><%= s.text %></dd>
<dt><%= it.u.stage %></dt><dd><%= s.stage %></dd>
<dt><%= it.u.subjectivityStatus %></dt><dd><strong><%= s.statusText %></strong></dd>
<dt><%= it.u.dueAt %></dt><dd><%= s.dueAt %><% if (s.overdue) { %> (<%= it.u.overdue %>)<% } %></dd>
<dt><%= it.u.latestResponse %></dt><dd><% if (!s.latest) { %><%= it.u.noResponse %><% } else { %><span class="uw-meta"><%= s.latest.at %></span>
<span class="uw-text"><%= s.latest.text %></span><% if (s.latest.documents.length > 0 || s.latest.hidden > 0) { %>
<span class="uw-meta"><%= it.u.responseDocuments %>:</span> <ul class="uw-plain"><% s.latest.documents.forEach(function (d) { %><li><a href="<%= d.url %>" download><%= d.filename %></a></li><% }) %><% if (s.latest.hidden > 0) { %><li><%= s.latest.hidden %> <%= it.u.hiddenDocuments %></li><% } %></ul><% } %><% } %></dd>
</dl>
<% if (s.history.length > 0) { %><h5><%= it.u.historyTitle %></h5>
<ol class="uw-thread">
<% s.history.forEach(function (step) { %><li><p class="uw-meta"><%= step.author %> · <%= step.at %> · <%= step.kind %></p>
<% if (step.text) { %><p class="uw-text"><%= step.text %></p>
<% } %><% if (step.documents.length > 0) { %><p class="uw-meta"><%= it.u.responseDocuments %>: <%= step.documents.join(', ') %></p>
<% } %></li>
<% }) %></ol>
<% } %><% if (s.form) { var f = s.form; %><form method="post" action="<%= it.action %>" novalidate>
<input type="hidden" name="_csrf" value="<%= it.csrf %>">
<input type="hidden" name="subjectivityId" value="<%= s.id %>">
<div class="field<%= f.decisionError ? ' has-error' : '' %>">
<fieldset class="choice"<% if (f.describedBy) { %> aria-describedby="<%= f.describedBy %>"<% } %>>
<legend><%= it.u.decideLegend %> (<%= s.name %>)</legend>
<% if (f.hint) { %><span class="hint" id="<%= f.decisionId %>-hint"><%= f.hint %></span>
<% } %><% if (f.decisionError) { %><span class="error-message" id="<%= f.decisionId %>-error"><%= f.decisionError %></span>
<% } %><% f.choices.forEach(function (c) { %><label><input type="radio" id="<%= c.id %>" name="decision" value="<%= c.value %>"<% if (c.checked) { %> checked<% } %><% if (f.decisionError) { %> aria-invalid="true"<% } %>> <%= c.label %></label>
<% }) %></fieldset>
</div>
<%~ include('@underwriting-field', { f: f.reason }) %><div class="actions">
<button type="submit" name="_action" value="decide"><%= it.u.sendDecision %></button>
</div>
</form>
<% } %></div>
<% }) %><% }) %></section>
`;

/** The quote form: option rows (each with its subjectivities), currency, validity. */
const QUOTE_FORM = `<section class="uw-section" aria-labelledby="quote-title">
<h2 id="quote-title"><%= it.u.quoteTitle %></h2>
<p><%= it.u.quoteIntro %></p>
<form method="post" action="<%= it.action %>" novalidate>
<input type="hidden" name="_csrf" value="<%= it.csrf %>">
<input type="hidden" name="optionCount" value="<%= it.quote.rows.length %>">
<button type="submit" name="_action" value="quote" class="default-action" tabindex="-1" aria-hidden="true"><%= it.u.sendQuote %></button>
<% it.quote.rows.forEach(function (row) { %><fieldset class="item" id="<%= row.id %>" tabindex="-1">
<legend><%= it.u.option %> <%= row.number %></legend>
<input type="hidden" name="<%= row.subjectivityCountName %>" value="<%= row.subjectivities.length %>">
<div class="uw-row">
<%~ include('@underwriting-field', { f: row.insuranceSum }) %><%~ include('@underwriting-field', { f: row.deductible }) %><%~ include('@underwriting-field', { f: row.premium }) %></div>
<fieldset class="group">
<legend><%= it.u.subjectivities %> (<%= it.t.optional %>)</legend>
<% row.subjectivities.forEach(function (s) { %><div class="uw-row">
<%~ include('@underwriting-select', { f: s.stage }) %><%~ include('@underwriting-field', { f: s.text }) %><%~ include('@underwriting-field', { f: s.dueAt }) %></div>
<% }) %><% if (row.canAddSubjectivity) { %><button type="submit" name="_action" value="add-subjectivity:<%= row.index %>" class="secondary"><%= it.u.addSubjectivity %>: <%= it.u.option %> <%= row.number %></button>
<% } %></fieldset>
</fieldset>
<% }) %><% if (it.quote.canAddOption) { %><p><button type="submit" name="_action" value="add-option" class="secondary"><%= it.u.addOption %></button></p>
<% } %><%~ include('@underwriting-field', { f: it.quote.currency }) %><%~ include('@underwriting-field', { f: it.quote.validUntil }) %><div class="actions">
<button type="submit" name="_action" value="quote" class="primary"><%= it.u.sendQuote %></button>
</div>
</form>
</section>
`;

/** Declining or referring, with a reason. */
const DECLINE_FORM = `<section class="uw-section" aria-labelledby="decline-title">
<h2 id="decline-title"><%= it.u.declineTitle %></h2>
<form method="post" action="<%= it.action %>" novalidate>
<input type="hidden" name="_csrf" value="<%= it.csrf %>">
<div class="field<%= it.decline.decisionError ? ' has-error' : '' %>">
<fieldset class="choice" id="f-decision"<% if (it.decline.decisionError) { %> aria-describedby="f-decision-error"<% } %>>
<legend><%= it.u.decision %></legend>
<% if (it.decline.decisionError) { %><span class="error-message" id="f-decision-error"><%= it.decline.decisionError %></span>
<% } %><label><input type="radio" name="decision" value="DECLINED"<% if (it.decline.decision !== 'REFERRED') { %> checked<% } %>> <%= it.u.declined %></label>
<label><input type="radio" name="decision" value="REFERRED"<% if (it.decline.decision === 'REFERRED') { %> checked<% } %>> <%= it.u.referred %></label>
</fieldset>
</div>
<%~ include('@underwriting-field', { f: it.decline.reason }) %><div class="actions">
<button type="submit" name="_action" value="decline"><%= it.u.sendDecline %></button>
</div>
</form>
</section>
`;

/** The clarification thread with the broker, and a question to it. */
const THREAD = `<section class="uw-section" aria-labelledby="thread-title">
<h2 id="thread-title"><%= it.u.threadTitle %></h2>
<% if (it.messages.length === 0) { %><p><%= it.u.noMessages %></p>
<% } else { %><ol class="uw-thread">
<% it.messages.forEach(function (m) { %><li><p class="uw-meta"><%= m.author %> · <%= m.at %><% if (m.question) { %> · <%= it.u.isQuestion %><% } %></p>
<p class="uw-text"><%= m.text %></p></li>
<% }) %></ol>
<% } %><% if (it.ask) { %><form method="post" action="<%= it.action %>" novalidate>
<input type="hidden" name="_csrf" value="<%= it.csrf %>">
<%~ include('@underwriting-field', { f: it.ask }) %><div class="actions">
<button type="submit" name="_action" value="question"><%= it.u.sendQuestion %></button>
</div>
</form>
<% } %></section>
`;

export const UNDERWRITING_PAGE = `<h1><%= it.u.title %></h1>
<dl class="facts">
<dt><%= it.u.product %></dt><dd><%= it.product %></dd>
<dt><%= it.u.insurer %></dt><dd><%= it.insurerName %></dd>
<dt><%= it.u.limits %></dt><dd><ul class="uw-plain"><% it.limits.forEach(function (limit) { %><li><%= it.u.insuranceSum %> <%= limit.insuranceSum %>, <%= it.u.deductible %> <%= limit.deductible %></li><% }) %></ul></dd>
<dt><%= it.u.status %></dt><dd><%= it.statusText %></dd>
</dl>
<% if (it.notice) { %><p class="notice" role="status"><%= it.notice %></p>
<% } %>${ERROR_SUMMARY}<% if (it.answer) { %>${ANSWER_SUMMARY}<% } %><% if (it.subjectivities.length > 0) { %>${SUBJECTIVITIES}<% } %><section class="uw-section" aria-labelledby="answers-title">
<h2 id="answers-title"><%= it.u.answersTitle %></h2>
<% if (it.answers.length === 0) { %><p><%= it.u.noAnswers %></p>
<% } else { %><dl class="summary">
<% it.answers.forEach(function (a) { %><%~ include('@underwriting-answer', { a: a }) %><% }) %></dl>
<% } %></section>
<section class="uw-section" aria-labelledby="documents-title">
<h2 id="documents-title"><%= it.u.documentsTitle %></h2>
<% if (it.documents.length === 0) { %><p><%= it.u.noDocuments %></p>
<% } else { %><ul>
<% it.documents.forEach(function (d) { %><li><a href="<%= d.url %>" download><%= d.filename %></a> <span class="hint"><%= d.size %></span></li>
<% }) %></ul>
<% } %></section>
<% if (it.quote) { %>${QUOTE_FORM}${DECLINE_FORM}<% } %>${THREAD}`;
