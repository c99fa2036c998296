import type { GraphQLSchema } from 'graphql';
import { Role, type RequestContext, type Viewer } from '../../../access';
import { LinkKind, type AccessLink } from '../../../links';
import { DomainError } from '../../../platform/errors/domain-error';
import { LIMITS } from '../../../platform/validation/rules';
import { decisionsAllowed, QuoteRequest, QuoteRequestStatus, SubjectivityDecision, SubjectivityStatus } from '../../../quotes';
import { TenderStatus } from '../../../tenders';
import { prepareOperation } from '../../graphql/prepared-operation';
import { requestScopeOf } from '../../http/request-context';
import type { FormFields, LinkPage, LinkPageRequest } from '../link-page';
import { registerPageTemplate } from '../page-views';
import type { PageLanguage, PageTexts } from '../page-texts';
import {
  fieldOfProblem,
  emptySubjectivity,
  idOf,
  initialQuoteForm,
  MAX_OPTION_ROWS,
  MAX_SUBJECTIVITY_ROWS,
  onlyFields,
  optionField,
  optionsOf,
  readQuoteForm,
  subjectivityCountField,
  subjectivityField,
  type DeclineFormValues,
  type FormProblem,
  type QuoteFormValues,
} from './underwriting-form';
import { UNDERWRITING_ANSWER, UNDERWRITING_FIELD, UNDERWRITING_PAGE, UNDERWRITING_SELECT } from './underwriting.templates';

registerPageTemplate('underwriting', UNDERWRITING_PAGE);
registerPageTemplate('underwriting-field', UNDERWRITING_FIELD);
registerPageTemplate('underwriting-select', UNDERWRITING_SELECT);
registerPageTemplate('underwriting-answer', UNDERWRITING_ANSWER);

/**
 * What the page reads, as the link's insurer reads it through the API: the tender as it sees it (its required answers
 * only, the documents it may see), its own quote requests, and its own thread. Nothing else reaches the page.
 */
const READ = `query UnderwritingPage($tenderId: ID!) {
  tender(id: $tenderId) {
    id status product redacted
    riskAssessment { questionSet { product version } }
    documents { id filename size downloadUrl }
  }
  quoteRequests(tenderId: $tenderId) {
    id status source currency validUntil quotedAt underwriterReason riskInformation
    insurer { id name }
    limits { insuranceSum deductible }
    options { id ordered insuranceSum deductible premium currency subjectivities { text stage } }
  }
}`;
const THREAD = `query UnderwritingThread($tenderId: ID!, $insurerId: ID!) {
  tenderMessages(tenderId: $tenderId, insurerId: $insurerId) { id authorRole text createdAt requestsInformation }
}`;
const LABELS = `query UnderwritingLabels($product: String!, $version: Int!) { questionSet(product: $product, version: $version) { schema } }`;
const SUBJECTIVITIES = `query UnderwritingSubjectivities($tenderId: ID!) {
  tenderSubjectivities(tenderId: $tenderId) {
    id text stage status dueAt quoteOptionId
    history { at actorRole kind text documentIds }
  }
}`;
const DECIDE = `mutation UnderwritingDecision($input: DecideSubjectivityInput!) { decideSubjectivity(input: $input) { id status } }`;
const SUBMIT = `mutation UnderwritingQuote($input: SubmitManualQuoteInput!) { submitManualQuote(input: $input) { id status } }`;
const ASK = `mutation UnderwritingQuestion($input: PostTenderMessageInput!) { postTenderMessage(input: $input) { id } }`;

interface RequestRead {
  id: string;
  status: QuoteRequestStatus;
  currency: string | null;
  validUntil: string | null;
  quotedAt: string | null;
  underwriterReason: string | null;
  riskInformation: Record<string, unknown>;
  insurer: { id: string; name: string };
  limits: { insuranceSum: number; deductible: number }[];
  options: {
    id: string;
    ordered: boolean;
    insuranceSum: number;
    deductible: number;
    premium: number;
    currency: string;
    subjectivities: { text: string; stage: string }[];
  }[];
}

/** A subjectivity of the request's options as its insurer reads it (`tenderSubjectivities`). */
interface SubjectivityRead {
  id: string;
  text: string;
  stage: string;
  status: SubjectivityStatus;
  dueAt: string | null;
  quoteOptionId: string;
  history: { at: string; actorRole: string; kind: string; text: string | null; documentIds: string[] }[];
}

interface PageRead {
  tender: {
    id: string;
    product: string;
    riskAssessment: { questionSet: { product: string; version: number } } | null;
    documents: { id: string; filename: string; size: number; downloadUrl: string }[] | null;
  };
  request: RequestRead;
  messages: { authorRole: string; text: string; createdAt: string; requestsInformation: boolean }[];
  schema: Record<string, unknown> | null;
  /** The subjectivities of this request's options, in the options' order; none before it quoted. */
  subjectivities: SubjectivityRead[];
}

/** States the underwriter answers in (as `submitManualQuote` takes them): a form; otherwise the page only reads. */
const ANSWERABLE: readonly QuoteRequestStatus[] = [QuoteRequestStatus.AWAITING_MANUAL, QuoteRequestStatus.REFERRED];
const ANSWERED: readonly QuoteRequestStatus[] = [
  QuoteRequestStatus.QUOTED,
  QuoteRequestStatus.DECLINED,
  QuoteRequestStatus.REFERRED,
  QuoteRequestStatus.EXPIRED,
];
const STAGES = ['PRE_BIND', 'POST_BIND'] as const;
const DECISIONS: readonly string[] = Object.values(SubjectivityDecision);
const CLEARED: readonly SubjectivityStatus[] = [SubjectivityStatus.ACCEPTED, SubjectivityStatus.WAIVED];
const TEXT_MAX = 500;
const QUESTION_MAX = 4000;

const locale = (lang: PageLanguage) => (lang === 'de' ? 'de-DE' : 'en-GB');
const number = (value: number, lang: PageLanguage) => new Intl.NumberFormat(locale(lang), { maximumFractionDigits: 2 }).format(value);
const money = (value: number, currency: string, lang: PageLanguage) =>
  new Intl.NumberFormat(locale(lang), { style: 'currency', currency }).format(value);
const dateTime = (iso: string, lang: PageLanguage) =>
  new Intl.DateTimeFormat(locale(lang), { dateStyle: 'long', timeStyle: 'short', timeZone: 'Europe/Berlin' }).format(new Date(iso));
const size = (bytes: number, lang: PageLanguage) =>
  bytes < 1024 * 1024 ? `${number(Math.max(1, Math.round(bytes / 1024)), lang)} KB` : `${number(bytes / 1024 / 1024, lang)} MB`;

/** The decision form's fields of one subjectivity, as errors name them (the form itself sends `decision` and `reason`). */
const decisionField = (subjectivityId: string) => `subjectivities[${subjectivityId}].decision`;
const reasonField = (subjectivityId: string) => `subjectivities[${subjectivityId}].reason`;
const SUBJECTIVITY_FIELD = /^subjectivities\[([^\]]+)\]\.(decision|reason)$/;

/** The viewer a link stands for: its request's insurer, named in records as the link (`link:<id>`, `answeredBy`). */
const viewerOf = (link: AccessLink, insurerId: string): Viewer => ({
  appId: `link:${link.id}`,
  role: Role.INSURER,
  insurerId,
  jti: link.id,
  expiresAt: link.expiresAt,
  tokenGeneration: 0,
});

type Answer = { label: string; value?: string; children?: Answer[]; items?: Answer[] };
type Schema = Record<string, unknown>;
const isObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A question's label in the page's language from the question set (x-label), else the answer's own key. */
function labelOf(schema: Schema | undefined, key: string, lang: PageLanguage, t: PageTexts): string {
  const label = schema?.['x-label'];
  if (typeof label === 'string') return label;
  if (isObject(label) && typeof label[lang] === 'string') return label[lang];
  const known = t.underwriting.fields as Record<string, string>;
  return known[key] ?? key;
}

/** The answers an insurer was sent (its request's risk information) as labelled rows, in the question set's order. */
function answersOf(value: Record<string, unknown>, schema: Schema | undefined, lang: PageLanguage, t: PageTexts): Answer[] {
  const properties = isObject(schema?.properties) ? (schema.properties as Record<string, Schema>) : {};
  const order = (key: string) => {
    const position = properties[key]?.['x-order'];
    return typeof position === 'number' ? position : 1e9;
  };
  return Object.keys(value)
    .sort((a, b) => order(a) - order(b))
    .map((key) => answerOf(value[key], properties[key], labelOf(properties[key], key, lang, t), lang, t));
}

function answerOf(value: unknown, schema: Schema | undefined, label: string, lang: PageLanguage, t: PageTexts): Answer {
  if (Array.isArray(value)) {
    const items = schema && isObject(schema.items) ? schema.items : undefined;
    return { label, items: value.map((item, index) => answerOf(item, items, `${t.underwriting.item} ${index + 1}`, lang, t)) };
  }
  if (isObject(value)) return { label, children: answersOf(value, schema, lang, t) };
  if (typeof value === 'boolean') return { label, value: value ? t.yes : t.no };
  if (typeof value === 'number') return { label, value: number(value, lang) };
  return { label, value: typeof value === 'string' ? value : '–' };
}

/** The field's view: its name, id, label, value and error. */
const fieldView = (name: string, label: string, value: string, errors: Map<string, string>, extra: Record<string, unknown> = {}) => ({
  name,
  id: idOf(name),
  label,
  value,
  error: errors.get(name),
  ...extra,
});

/** The decision form of one subjectivity, as sent. */
interface DecisionFormValues {
  subjectivityId: string;
  decision: string;
  reason: string;
}

interface Shown {
  quote?: QuoteFormValues;
  decline?: DeclineFormValues;
  decision?: DecisionFormValues;
  question?: string;
  problems?: FormProblem[];
  notice?: string;
}

/**
 * The underwriter's quote page (`/underwriting/{token}`, docs/people.md): what a MANUAL insurer is asked, the answers
 * and documents it may see and its thread with the broker, read as that insurer reads them through the API; a quote,
 * a decline or referral, or a question, sent through `submitManualQuote` and `postTenderMessage` as that insurer
 * (the same rules and effects); a read-only summary once answered. A CLOSED tender's page is gone (410).
 */
export function underwritingPage(deps: { schema: GraphQLSchema }): LinkPage {
  const read = prepareOperation(deps.schema, READ);
  const thread = prepareOperation(deps.schema, THREAD);
  const labels = prepareOperation(deps.schema, LABELS);
  const submit = prepareOperation(deps.schema, SUBMIT);
  const ask = prepareOperation(deps.schema, ASK);
  const subjectivitiesOf = prepareOperation(deps.schema, SUBJECTIVITIES);
  const decide = prepareOperation(deps.schema, DECIDE);

  /** The link's request, and the insurer's context; undefined when the page must answer otherwise (it has). */
  async function opened(page: LinkPageRequest) {
    const u = page.t.underwriting;
    const request = page.link.quoteRequestId
      ? await page.em.findOne(QuoteRequest, { id: page.link.quoteRequestId, tender: page.link.tenderId }, { populate: ['tender'] })
      : null;
    if (!request) {
      page.message(404, 'notFound');
      return undefined;
    }
    // The specification's privacy rule: a CLOSED tender's data is no insurer's; its page is gone.
    if (request.tender.status === TenderStatus.CLOSED) {
      page.render('message', { title: u.closedTitle, heading: u.closedTitle, text: u.closedText }, { status: 410 });
      return undefined;
    }
    const context = requestScopeOf(page.res).contextAs(viewerOf(page.link, request.insurer.id));
    return { request, context };
  }

  async function readPage(page: LinkPageRequest, context: RequestContext, insurerId: string): Promise<PageRead | undefined> {
    const data = (await read.run(context, { tenderId: page.link.tenderId })) as {
      tender: PageRead['tender'];
      quoteRequests: RequestRead[];
    };
    const request = data.quoteRequests.find((candidate) => candidate.id === page.link.quoteRequestId);
    if (!request) return undefined;
    const messages = (
      (await thread.run(context, { tenderId: page.link.tenderId, insurerId }).catch(() => ({ tenderMessages: [] }))) as {
        tenderMessages: PageRead['messages'];
      }
    ).tenderMessages;
    const set = data.tender.riskAssessment?.questionSet;
    const schema = set
      ? ((
          (await labels.run(context, { product: set.product, version: set.version }).catch(() => null)) as {
            questionSet: { schema: Schema };
          } | null
        )?.questionSet.schema ?? null)
      : null;
    // Once it quoted: its options' subjectivities as they stand, read as its client reads them (the read is logged).
    const optionIds = new Set(request.options.map((option) => option.id));
    const subjectivities =
      optionIds.size === 0
        ? []
        : (
            (await subjectivitiesOf.run(context, { tenderId: page.link.tenderId })) as {
              tenderSubjectivities: SubjectivityRead[];
            }
          ).tenderSubjectivities.filter((subjectivity) => optionIds.has(subjectivity.quoteOptionId));
    return { tender: data.tender, request, messages, schema, subjectivities };
  }

  /**
   * The subjectivities of the request's options, per option: what they say, where they stand, the broker's latest
   * response and the steps so far; a decision form where `decideSubjectivity` takes one (its statuses, and once cover is
   * ordered only the ordered option's), with what was sent and its errors after a refusal.
   */
  function subjectivitiesView(page: LinkPageRequest, data: PageRead, shown: Shown, errors: Map<string, string>) {
    const { lang } = page;
    const u = page.t.underwriting;
    const documents = new Map((data.tender.documents ?? []).map((document) => [document.id, document]));
    const named = (ids: readonly string[]) => ({
      documents: ids.flatMap((id) => {
        const document = documents.get(id);
        return document ? [{ filename: document.filename, url: document.downloadUrl }] : [];
      }),
      hidden: ids.filter((id) => !documents.has(id)).length,
    });
    const author = (role: string) => (role === 'INSURER' ? u.you : role === 'BROKER' ? u.broker : u.exchange);
    const ordered = data.request.options.find((option) => option.ordered)?.id;
    return data.request.options.flatMap((option, index) => {
      const own = data.subjectivities.filter((subjectivity) => subjectivity.quoteOptionId === option.id);
      if (own.length === 0) return [];
      const items = own.map((subjectivity, position) => {
        const name = `${u.subjectivity} ${position + 1} (${u.option} ${index + 1})`;
        const latest = [...subjectivity.history].reverse().find((step) => step.kind === 'RESPONDED');
        const allowed = ordered && ordered !== option.id ? [] : decisionsAllowed(subjectivity.status);
        const sent = shown.decision?.subjectivityId === subjectivity.id ? shown.decision : undefined;
        const decisionId = idOf(decisionField(subjectivity.id));
        const decisionError = errors.get(decisionField(subjectivity.id));
        const hint = allowed.length > 0 && !allowed.includes(SubjectivityDecision.REJECT) ? u.rejectOnlyResponse : undefined;
        return {
          id: subjectivity.id,
          anchor: `s-${subjectivity.id}`,
          name,
          text: subjectivity.text,
          stage: u.stages[subjectivity.stage as keyof typeof u.stages] ?? subjectivity.stage,
          statusText: u.subjectivityStatuses[subjectivity.status] ?? subjectivity.status,
          dueAt: subjectivity.dueAt ? dateTime(subjectivity.dueAt, lang) : u.noDueDate,
          overdue: subjectivity.dueAt !== null && new Date(subjectivity.dueAt) < page.now && !CLEARED.includes(subjectivity.status),
          latest: latest && { at: dateTime(latest.at, lang), text: latest.text ?? '', ...named(latest.documentIds) },
          history: subjectivity.history.map((step) => {
            const attached = named(step.documentIds);
            return {
              author: author(step.actorRole),
              at: dateTime(step.at, lang),
              kind: u.steps[step.kind as keyof typeof u.steps] ?? step.kind,
              text: step.text,
              documents: [
                ...attached.documents.map((document) => document.filename),
                ...(attached.hidden > 0 ? [`${attached.hidden} ${u.hiddenDocuments}`] : []),
              ],
            };
          }),
          form:
            allowed.length === 0
              ? undefined
              : {
                  decisionId,
                  decisionError,
                  hint,
                  describedBy: [hint ? `${decisionId}-hint` : '', decisionError ? `${decisionId}-error` : ''].filter(Boolean).join(' '),
                  choices: allowed.map((decision, choice) => ({
                    id: choice === 0 ? decisionId : `${decisionId}-${decision.toLowerCase()}`,
                    value: decision,
                    label: u.decisions[decision],
                    checked: sent?.decision === decision,
                  })),
                  reason: fieldView(reasonField(subjectivity.id), u.decisionReason, sent?.reason ?? '', errors, {
                    name: 'reason',
                    textarea: true,
                    maxlength: LIMITS.reason,
                    hint: u.decisionReasonHint,
                  }),
                },
        };
      });
      return [
        {
          heading: `${u.option} ${index + 1}: ${u.insuranceSum} ${money(option.insuranceSum, option.currency, lang)}, ${u.deductible} ${money(option.deductible, option.currency, lang)}`,
          ordered: option.ordered,
          items,
        },
      ];
    });
  }

  function show(page: LinkPageRequest, data: PageRead, shown: Shown, status = 200): void {
    const { t, lang } = page;
    const u = t.underwriting;
    const { request } = data;
    const currency = request.currency ?? 'EUR';
    const problems = shown.problems ?? [];
    const errors = new Map<string, string>();
    const general: string[] = [];
    for (const problem of problems) {
      if (problem.field && !errors.has(problem.field)) errors.set(problem.field, problem.message);
      else if (!problem.field) general.push(problem.message);
    }
    const answerable = ANSWERABLE.includes(request.status);
    const quote = shown.quote ?? initialQuoteForm(request.limits, currency);
    const stageOptions = STAGES.map((stage) => ({ value: stage, label: u.stages[stage] }));
    const rows = quote.options.map((row, index) => ({
      id: `option-${index + 1}`,
      index,
      number: index + 1,
      subjectivityCountName: subjectivityCountField(index),
      insuranceSum: fieldView(optionField(index, 'insuranceSum'), u.insuranceSum, row.insuranceSum, errors, {
        inputmode: 'decimal',
        unit: currency,
      }),
      deductible: fieldView(optionField(index, 'deductible'), u.deductible, row.deductible, errors, {
        inputmode: 'decimal',
        unit: currency,
      }),
      premium: fieldView(optionField(index, 'premium'), u.premium, row.premium, errors, {
        inputmode: 'decimal',
        unit: currency,
        hint: u.premiumHint,
      }),
      subjectivities: row.subjectivities.map((subjectivity, position) => ({
        stage: fieldView(subjectivityField(index, position, 'stage'), `${u.stage} ${position + 1}`, subjectivity.stage, errors, {
          options: stageOptions,
        }),
        text: fieldView(subjectivityField(index, position, 'text'), `${u.subjectivity} ${position + 1}`, subjectivity.text, errors, {
          maxlength: TEXT_MAX,
        }),
        dueAt: fieldView(
          subjectivityField(index, position, 'dueAt'),
          `${u.dueAt} (${u.subjectivity} ${position + 1})`,
          subjectivity.dueAt,
          errors,
          {
            type: 'date',
            hint: u.dueAtHint,
          },
        ),
      })),
      canAddSubjectivity: row.subjectivities.length < MAX_SUBJECTIVITY_ROWS,
    }));
    const subjectivities = subjectivitiesView(page, data, shown, errors);
    const names = new Map(subjectivities.flatMap((option) => option.items.map((item) => [item.id, item.name] as const)));
    // A decision refused where no form is left (the subjectivity was cleared meanwhile): said above the page.
    for (const [field, message] of [...errors.entries()]) {
      const own = SUBJECTIVITY_FIELD.exec(field);
      if (own && !subjectivities.some((option) => option.items.some((item) => item.id === own[1] && item.form))) {
        errors.delete(field);
        general.push(`${names.get(own[1]) ?? u.subjectivity}: ${message}`);
      }
    }
    const summary = [...errors.entries()].map(([field, message]) => ({
      id: idOf(field),
      text: `${labelOfField(field, u, names)}: ${message}`,
    }));
    const answered = ANSWERED.includes(request.status);
    const hasErrors = summary.length + general.length > 0;
    page.render(
      'underwriting',
      {
        title: hasErrors ? `${t.errorSummary}: ${u.title}` : answered && !answerable ? `${u.answerTitle} – ${u.title}` : u.title,
        u,
        product: data.tender.product,
        insurerName: request.insurer.name,
        limits: request.limits.map((limit) => ({
          insuranceSum: money(limit.insuranceSum, currency, lang),
          deductible: money(limit.deductible, currency, lang),
        })),
        statusText: u.statuses[request.status as keyof typeof u.statuses] ?? request.status,
        notice: shown.notice,
        summary,
        general,
        answer: answered
          ? {
              statusText: u.answered[request.status as keyof typeof u.answered],
              quotedAt: request.quotedAt && dateTime(request.quotedAt, lang),
              validUntil: request.validUntil && dateTime(request.validUntil, lang),
              reason: request.underwriterReason,
              options: request.options.map((option) => ({
                insuranceSum: money(option.insuranceSum, option.currency, lang),
                deductible: money(option.deductible, option.currency, lang),
                premium: money(option.premium, option.currency, lang),
                subjectivities: option.subjectivities.map((s) => ({
                  stage: u.stages[s.stage as keyof typeof u.stages] ?? s.stage,
                  text: s.text,
                })),
              })),
            }
          : undefined,
        subjectivities,
        answers: answersOf(request.riskInformation, data.schema ?? undefined, lang, t),
        documents: (data.tender.documents ?? []).map((document) => ({
          filename: document.filename,
          url: document.downloadUrl,
          size: size(document.size, lang),
        })),
        quote: answerable
          ? {
              rows,
              canAddOption: rows.length < MAX_OPTION_ROWS,
              currency: fieldView('currency', u.currency, quote.currency, errors, {
                maxlength: 3,
                hint: u.currencyHint,
                autocomplete: 'off',
              }),
              validUntil: fieldView('validUntil', u.validUntil, quote.validUntil, errors, { type: 'date', hint: u.validUntilHint }),
            }
          : undefined,
        decline: answerable
          ? {
              decision: shown.decline?.decision ?? 'DECLINED',
              decisionError: errors.get('decision'),
              reason: fieldView('reason', u.reason, shown.decline?.reason ?? '', errors, { textarea: true, maxlength: TEXT_MAX }),
            }
          : undefined,
        messages: data.messages.map((message) => ({
          author:
            message.authorRole === 'insurer' || message.authorRole === 'INSURER'
              ? u.you
              : message.authorRole === 'broker' || message.authorRole === 'BROKER'
                ? u.broker
                : u.exchange,
          at: dateTime(message.createdAt, lang),
          question: message.requestsInformation,
          text: message.text,
        })),
        ask: fieldView('text', u.question, shown.question ?? '', errors, { textarea: true, maxlength: QUESTION_MAX, hint: u.questionHint }),
        action: page.selfPath,
        csrf: page.formToken(),
      },
      { status, script: 'pages.js' },
    );
  }

  /** A domain refusal of the form's input, as problems on its fields (BAD_USER_INPUT); anything else goes on. */
  function problemsOf(error: unknown, page: LinkPageRequest, place: (parameter: string) => string | undefined): FormProblem[] | undefined {
    if (!(error instanceof DomainError) || error.code !== 'BAD_USER_INPUT') return undefined;
    const problems = error.errors.map((problem) => ({
      field: problem.parameter && place(problem.parameter),
      message: problemText(problem.message, page.lang, page.t),
    }));
    return problems.length > 0 ? problems : [{ message: problemText(error.message, page.lang, page.t) }];
  }

  return {
    kind: LinkKind.UNDERWRITING,

    async get(page) {
      const found = await opened(page);
      if (!found) return;
      const data = await readPage(page, found.context, found.request.insurer.id);
      if (!data) return page.message(404, 'notFound');
      const u = page.t.underwriting;
      const notice =
        page.req.query.sent === 'quote'
          ? u.sentQuote
          : page.req.query.sent === 'question'
            ? u.sentQuestion
            : page.req.query.sent === 'decision'
              ? u.sentDecision
              : data.request.status === QuoteRequestStatus.AWAITING_INFORMATION
                ? u.awaitingInformation
                : undefined;
      show(page, data, { notice });
    },

    async post(page, fields: FormFields) {
      const found = await opened(page);
      if (!found) return;
      const { context, request } = found;
      const action = fields._action ?? '';
      const data = await readPage(page, context, request.insurer.id);
      if (!data) return page.message(404, 'notFound');
      const u = page.t.underwriting;

      if (action === 'question') {
        if (!onlyFields(fields, ['text'])) return page.message(400, 'badRequest');
        const text = fields.text ?? '';
        if (text.trim() === '')
          return show(page, data, { question: text, problems: [{ field: 'text', message: page.t.problems.required }] }, 400);
        try {
          await ask.run(context, {
            input: { tenderId: page.link.tenderId, insurerId: request.insurer.id, text, requestsInformation: true },
          });
        } catch (error) {
          const problems = problemsOf(error, page, (parameter) => (parameter === 'text' ? 'text' : undefined));
          if (!problems) throw error;
          return show(page, data, { question: text, problems }, 400);
        }
        return page.redirect({ sent: 'question' });
      }

      if (action === 'decide') {
        if (!onlyFields(fields, ['subjectivityId', 'decision', 'reason'])) return page.message(400, 'badRequest');
        const sent = { subjectivityId: fields.subjectivityId ?? '', decision: fields.decision ?? '', reason: fields.reason ?? '' };
        // Only a subjectivity this page shows (its request's own), and only a decision there is.
        const subjectivity = data.subjectivities.find((candidate) => candidate.id === sent.subjectivityId);
        if (!subjectivity || (sent.decision !== '' && !DECISIONS.includes(sent.decision))) return page.message(400, 'badRequest');
        if (sent.decision === '')
          return show(
            page,
            data,
            { decision: sent, problems: [{ field: decisionField(subjectivity.id), message: u.chooseDecision }] },
            400,
          );
        try {
          // As the insurer's client decides: its access policy, the history entry, the broker's webhook.
          await decide.run(context, { input: { subjectivityId: subjectivity.id, decision: sent.decision, reason: sent.reason } });
        } catch (error) {
          // Not in this status (any more), or cover was ordered on another option: said at the decision, as it stands.
          if (error instanceof DomainError && error.code === 'CONFLICT')
            return show(
              page,
              data,
              { decision: sent, problems: [{ field: decisionField(subjectivity.id), message: u.decisionNotAllowed }] },
              409,
            );
          const problems = problemsOf(error, page, (parameter) =>
            parameter === 'reason' ? reasonField(subjectivity.id) : parameter === 'decision' ? decisionField(subjectivity.id) : undefined,
          );
          if (!problems) throw error;
          return show(page, data, { decision: sent, problems }, 400);
        }
        return page.redirect({ sent: 'decision' }, `s-${subjectivity.id}`);
      }

      if (action === 'decline') {
        if (!onlyFields(fields, ['decision', 'reason'])) return page.message(400, 'badRequest');
        const decline = { decision: fields.decision ?? '', reason: fields.reason ?? '' };
        if (decline.decision !== 'DECLINED' && decline.decision !== 'REFERRED') return page.message(400, 'badRequest');
        if (decline.reason.trim() === '')
          return show(page, data, { decline, problems: [{ field: 'reason', message: page.t.problems.required }] }, 400);
        try {
          await submit.run(context, {
            input: { quoteRequestId: request.id, decision: decline.decision, options: [], reason: decline.reason },
          });
        } catch (error) {
          const problems = problemsOf(error, page, (parameter) =>
            parameter === 'reason' || parameter === 'decision' ? parameter : undefined,
          );
          if (!problems) throw error;
          return show(page, data, { decline, problems }, 400);
        }
        return page.redirect({ sent: 'quote' });
      }

      const form = readQuoteForm(fields);
      if (!form) return page.message(400, 'badRequest');
      if (form.options.some((row) => row.subjectivities.some((s) => !(STAGES as readonly string[]).includes(s.stage))))
        return page.message(400, 'badRequest');
      const subjectivityTo = /^add-subjectivity:(\d{1,2})$/.exec(action);
      if (action === 'add-option' || subjectivityTo) {
        // Without JavaScript, one more row is one more round trip: the form again, with what was typed.
        if (action === 'add-option' && form.options.length < MAX_OPTION_ROWS)
          form.options.push({ insuranceSum: '', deductible: '', premium: '', subjectivities: [emptySubjectivity()] });
        const row = subjectivityTo ? form.options[Number(subjectivityTo[1])] : undefined;
        if (subjectivityTo && !row) return page.message(400, 'badRequest');
        if (row && row.subjectivities.length < MAX_SUBJECTIVITY_ROWS) row.subjectivities.push(emptySubjectivity());
        return show(page, data, { quote: form, notice: action === 'add-option' ? u.optionAdded : u.subjectivityAdded });
      }
      if (action !== 'quote') return page.message(400, 'badRequest');
      const sent = optionsOf(form, page.lang, page.t);
      if (sent.problems.length > 0) return show(page, data, { quote: form, problems: sent.problems }, 400);
      try {
        await submit.run(context, {
          input: {
            quoteRequestId: request.id,
            decision: 'QUOTED',
            options: sent.options,
            currency: form.currency.trim() === '' ? null : form.currency.trim(),
            validUntil: form.validUntil.trim() === '' ? null : form.validUntil.trim(),
          },
        });
      } catch (error) {
        const problems = problemsOf(error, page, (parameter) => fieldOfProblem(parameter, sent));
        if (!problems) throw error;
        return show(page, data, { quote: form, problems }, 400);
      }
      page.redirect({ sent: 'quote' });
    },
  };
}

/** A field's name in the error summary: its label, with its option's number. */
function labelOfField(field: string, u: PageTexts['underwriting'], subjectivities: ReadonlyMap<string, string>): string {
  const subjectivity = SUBJECTIVITY_FIELD.exec(field);
  if (subjectivity)
    return `${subjectivities.get(subjectivity[1]) ?? u.subjectivity}, ${subjectivity[2] === 'decision' ? u.decideLegend : u.decisionReason}`;
  const option = /^options\[(\d+)\]\.(insuranceSum|deductible|premium|subjectivities\[(\d+)\]\.(text|stage|dueAt))$/.exec(field);
  if (option) {
    const name =
      option[3] !== undefined
        ? `${option[4] === 'stage' ? u.stage : option[4] === 'dueAt' ? u.dueAt : u.subjectivity} ${Number(option[3]) + 1}`
        : u[option[2] as 'premium'];
    return `${u.option} ${Number(option[1]) + 1}, ${name}`;
  }
  const labels: Record<string, string> = {
    currency: u.currency,
    validUntil: u.validUntil,
    reason: u.reason,
    decision: u.decision,
    text: u.question,
  };
  return labels[field] ?? field;
}

/**
 * A domain problem in the page's language: the rules speak English (as the API does); the ones an underwriter meets
 * are said in German too, and in plainer English where the API's words name its fields.
 */
function problemText(message: string, lang: PageLanguage, t: PageTexts): string {
  const rules: [RegExp, (match: RegExpExecArray) => Record<PageLanguage, string>][] = [
    [/^must not be blank$/, () => ({ de: t.problems.required, en: t.problems.required })],
    // A required text's rule, refused for being blank (other refusals of it have messages of their own).
    [/^must be 1 to \d+ characters, not blank/, () => ({ de: t.problems.required, en: t.problems.required })],
    [/^must not contain /, () => ({ de: t.problems.controlCharacters, en: t.problems.controlCharacters })],
    [
      /^must be empty: this tender's customer data was erased/,
      () => ({ de: t.underwriting.erasedReason, en: t.underwriting.erasedReason }),
    ],
    [/^must be at most (\d+) characters/, (m) => ({ de: `Höchstens ${m[1]} Zeichen.`, en: `At most ${m[1]} characters.` })],
    [
      /^must be an amount of at least (\S+) \(a cent\) up to (\d+)/,
      (m) => ({ de: `Mindestens ${m[1].replace('.', ',')}, höchstens ${m[2]}.`, en: `At least ${m[1]}, at most ${m[2]}.` }),
    ],
    [/^must be a positive amount up to (\d+)/, (m) => ({ de: `Mehr als 0, höchstens ${m[1]}.`, en: `More than 0, at most ${m[1]}.` })],
    [/^must be a non-negative amount up to (\d+)/, (m) => ({ de: `Mindestens 0, höchstens ${m[1]}.`, en: `At least 0, at most ${m[1]}.` })],
    [/^must be >= (\S+)$/, (m) => ({ de: `Mindestens ${m[1].replace('.', ',')}.`, en: `At least ${m[1]}.` })],
    [/^must be > (\S+)$/, (m) => ({ de: `Mehr als ${m[1].replace('.', ',')}.`, en: `More than ${m[1]}.` })],
    [/^must be <= (\S+)$/, (m) => ({ de: `Höchstens ${m[1].replace('.', ',')}.`, en: `At most ${m[1]}.` })],
    [
      /^must be below the insurance sum$/,
      () => ({ de: 'Muss unter der Versicherungssumme liegen.', en: 'Must be below the insurance sum.' }),
    ],
    [
      /^must be an ISO 4217 currency code/,
      () => ({ de: 'Bitte einen Währungscode wie EUR angeben.', en: 'Please enter a currency code such as EUR.' }),
    ],
    [/^must be an RFC 3339 timestamp/, () => ({ de: 'Bitte ein Datum eingeben.', en: 'Please enter a date.' })],
    [/^must be within (\d+) days/, (m) => ({ de: `Höchstens ${m[1]} Tage ab heute.`, en: `At most ${m[1]} days from today.` })],
    [/^must not be before /, () => ({ de: 'Darf nicht in der Vergangenheit liegen.', en: 'Must not be in the past.' })],
    [
      /^QUOTED needs at least one option/,
      () => ({ de: 'Bitte geben Sie für mindestens eine Option eine Prämie an.', en: 'Please enter a premium for at least one option.' }),
    ],
    [
      /^no option is for a requested limit/,
      () => ({
        de: 'Keine Option passt zu einem angefragten Limit (Versicherungssumme und Selbstbehalt).',
        en: 'No option matches a requested limit (insurance sum and deductible).',
      }),
    ],
  ];
  for (const [pattern, say] of rules) {
    const match = pattern.exec(message);
    if (match) return say(match)[lang];
  }
  return message.charAt(0).toUpperCase() + message.slice(1) + (message.endsWith('.') ? '' : '.');
}
