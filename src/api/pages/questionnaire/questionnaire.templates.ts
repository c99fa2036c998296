/**
 * The questionnaire page's templates (eta, every value escaped): the form, one question of it (recursive: groups and
 * lists hold questions), and the read-only summary after submission. `it.t` holds the language's words.
 */

/** Who asks, for whom, on what: all the page shows of the tender. */
const FACTS = `<dl class="facts">
<dt><%= it.t.questionnaire.product %></dt><dd><%= it.product %></dd>
<dt><%= it.t.questionnaire.broker %></dt><dd><%= it.brokerName %></dd>
<dt><%= it.t.questionnaire.customer %></dt><dd><%= it.customerName %></dd>
</dl>
`;

export const QUESTIONNAIRE_FORM = `<h1><%= it.heading %></h1>
${FACTS}<% if (it.saved) { %><p class="notice" role="status"><%= it.t.questionnaire.saved %></p>
<% } %><% if (it.summary.length > 0 || it.general.length > 0) { %><div class="error-summary" id="error-summary" role="alert" tabindex="-1" aria-labelledby="error-summary-title">
<h2 id="error-summary-title"><%= it.t.errorSummary %></h2>
<ul>
<% it.general.forEach(function (text) { %><li><%= text %></li>
<% }) %><% it.summary.forEach(function (item) { %><li><a href="<%= item.href %>"><%= item.text %></a></li>
<% }) %></ul>
</div>
<% } %><p><%= it.brokerName %> <%= it.t.questionnaire.intro %></p>
<form method="post" action="<%= it.action %>" novalidate>
<input type="hidden" name="_csrf" value="<%= it.csrf %>">
<input type="hidden" name="_version" value="<%= it.version %>">
<button type="submit" name="_action" value="save" class="default-action" tabindex="-1" aria-hidden="true"><%= it.t.questionnaire.save %></button>
<% it.nodes.forEach(function (node) { %><%~ include('@questionnaire-node', { node: node }) %><% }) %>
<div class="actions">
<button type="submit" name="_action" value="save"><%= it.t.questionnaire.save %></button>
<button type="submit" name="_action" value="submit" class="primary"><%= it.t.questionnaire.submit %></button>
</div>
</form>
`;

/** The hint, the condition and the error of a question: what its control's aria-describedby names. */
const DESCRIPTIONS = `<% if (n.help) { %><span class="hint" id="<%= n.id %>-hint"><%= n.help %></span>
<% } %><% if (n.condition) { %><span class="condition" id="<%= n.id %>-condition"><% if (n.condition.value !== undefined) { %><%= it.t.questionnaire.onlyIf %> „<%= n.condition.label %>“: <%= n.condition.valueLabel %><% } else { %><%= it.t.questionnaire.onlyIfAnswered %> „<%= n.condition.label %>“<% } %></span>
<% } %><% if (n.error) { %><span class="error-message" id="<%= n.id %>-error"><%= n.error %></span>
<% } %>`;

export const QUESTIONNAIRE_NODE = `<% var n = it.node; var described = [n.help ? n.id + '-hint' : '', n.condition ? n.id + '-condition' : '', n.error ? n.id + '-error' : ''].filter(Boolean).join(' '); var optional = !n.required && !n.condition ? ' (' + it.t.optional + ')' : ''; %>
<div class="field<%= n.error ? ' has-error' : '' %>"<% if (n.condition) { %> data-when-field="<%= n.condition.field %>"<% if (n.condition.value !== undefined) { %> data-when-value="<%= n.condition.value %>"<% } %><% } %>>
<% if (n.kind === 'field' && n.control === 'yesno') { %><fieldset class="choice"<% if (described) { %> aria-describedby="<%= described %>"<% } %>>
<legend><%= n.label %><%= optional %></legend>
${DESCRIPTIONS}<label><input type="radio" id="<%= n.id %>-true" name="<%= n.name %>" value="true"<% if (n.value === 'true') { %> checked<% } %><% if (n.error) { %> aria-invalid="true"<% } %>> <%= it.t.yes %></label>
<label><input type="radio" id="<%= n.id %>-false" name="<%= n.name %>" value="false"<% if (n.value === 'false') { %> checked<% } %><% if (n.error) { %> aria-invalid="true"<% } %>> <%= it.t.no %></label>
</fieldset>
<% } else if (n.kind === 'field') { %><label for="<%= n.id %>"><%= n.label %><%= optional %></label>
${DESCRIPTIONS}<% var attributes = (described ? ' aria-describedby="' + described + '"' : '') + (n.error ? ' aria-invalid="true"' : ''); %>
<% if (n.control === 'select') { %><select id="<%= n.id %>" name="<%= n.name %>"<%~ attributes %>>
<option value=""><%= it.t.choose %></option>
<% n.options.forEach(function (option) { %><option value="<%= option.value %>"<% if (option.value === n.value) { %> selected<% } %>><%= option.label %></option>
<% }) %></select>
<% } else if (n.control === 'textarea') { %><textarea id="<%= n.id %>" name="<%= n.name %>" rows="5"<% if (n.maxLength) { %> maxlength="<%= n.maxLength %>"<% } %><%~ attributes %>><%= n.value %></textarea>
<% } else { %><input id="<%= n.id %>" name="<%= n.name %>" type="<%= n.control === 'number' ? 'text' : n.control %>"<% if (n.control === 'number') { %> inputmode="decimal"<% } %> value="<%= n.value %>"<% if (n.maxLength) { %> maxlength="<%= n.maxLength %>"<% } %><% if (n.control === 'email') { %> autocomplete="email"<% } %><%~ attributes %>><% if (n.unit) { %><span class="unit"><%= n.unit %></span><% } %>
<% } %><% } else if (n.kind === 'group') { %><fieldset class="group" id="<%= n.id %>" tabindex="-1"<% if (described) { %> aria-describedby="<%= described %>"<% } %>>
<legend><%= n.label %><%= optional %></legend>
${DESCRIPTIONS}<% n.children.forEach(function (child) { %><%~ include('@questionnaire-node', { node: child }) %><% }) %>
</fieldset>
<% } else { %><fieldset class="group list" id="<%= n.id %>" tabindex="-1"<% if (described) { %> aria-describedby="<%= described %>"<% } %>>
<legend><%= n.label %><%= optional %></legend>
${DESCRIPTIONS}<input type="hidden" name="<%= n.countField %>" value="<%= n.items.length %>">
<% if (n.items.length === 0) { %><p><%= it.t.questionnaire.noItems %></p>
<% } %><% n.items.forEach(function (item) { %><fieldset class="item" id="<%= item.id %>" tabindex="-1">
<legend><%= it.t.questionnaire.item %> <%= item.number %></legend>
<% item.children.forEach(function (child) { %><%~ include('@questionnaire-node', { node: child }) %><% }) %>
<button type="submit" name="_action" value="remove:<%= item.name %>" class="secondary"><%= it.t.questionnaire.removeItem %>: <%= n.label %>, <%= it.t.questionnaire.item %> <%= item.number %></button>
</fieldset>
<% }) %><% if (n.items.length < n.maxItems) { %><button type="submit" name="_action" value="add:<%= n.name %>" class="secondary"><%= it.t.questionnaire.addItem %>: <%= n.label %></button>
<% } %></fieldset>
<% } %></div>
`;

export const QUESTIONNAIRE_SUMMARY = `<h1><%= it.t.questionnaire.submittedTitle %></h1>
${FACTS}<p role="status"><%= it.t.questionnaire.submittedText %></p>
<h2><%= it.heading %></h2>
<dl class="summary">
<% it.nodes.forEach(function (node) { %><%~ include('@questionnaire-answer', { node: node }) %><% }) %></dl>
`;

export const QUESTIONNAIRE_ANSWER = `<% var n = it.node; %><dt><%= n.label %></dt>
<% if (n.kind === 'field') { %><dd><%= it.display(n) %></dd>
<% } else if (n.kind === 'group') { %><dd><dl class="summary">
<% n.children.forEach(function (child) { %><%~ include('@questionnaire-answer', { node: child }) %><% }) %></dl></dd>
<% } else { %><dd><% if (n.items.length === 0) { %><%= it.t.questionnaire.notAnswered %><% } %><% n.items.forEach(function (item) { %><dl class="summary">
<dt><%= it.t.questionnaire.item %> <%= item.number %></dt><dd><dl class="summary">
<% item.children.forEach(function (child) { %><%~ include('@questionnaire-answer', { node: child }) %><% }) %></dl></dd></dl>
<% }) %></dd>
<% } %>`;
