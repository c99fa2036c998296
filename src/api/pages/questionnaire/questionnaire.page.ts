import { LinkKind } from '../../../links';
import { DomainError } from '../../../platform/errors/domain-error';
import { openQuestionnaire, saveQuestionnaire, type AnswerProblem, type Questionnaire, type RiskEventListener } from '../../../risk';
import type { FormFields, LinkPage, LinkPageRequest } from '../link-page';
import { registerPageTemplate } from '../page-views';
import type { PageTexts } from '../page-texts';
import { buildForm, findNode, getAt, idOf, parseForm, placeProblems, setAt, type FieldNode } from './questionnaire-form';
import { QUESTIONNAIRE_ANSWER, QUESTIONNAIRE_FORM, QUESTIONNAIRE_NODE, QUESTIONNAIRE_SUMMARY } from './questionnaire.templates';

registerPageTemplate('questionnaire', QUESTIONNAIRE_FORM);
registerPageTemplate('questionnaire-node', QUESTIONNAIRE_NODE);
registerPageTemplate('questionnaire-summary', QUESTIONNAIRE_SUMMARY);
registerPageTemplate('questionnaire-answer', QUESTIONNAIRE_ANSWER);

/** What the questionnaire page needs besides the frame: who hears of a submission, and the dispatcher's wake-up. */
interface QuestionnaireDeps {
  riskEvents: readonly RiskEventListener[];
  wakeDispatcher: () => void;
}

/** An answer as the summary shows it: yes/no, a choice's words, the text; "not answered" for none. */
const display =
  (t: PageTexts) =>
  (node: FieldNode): string => {
    if (node.value === '') return t.questionnaire.notAnswered;
    if (node.control === 'yesno') return node.value === 'true' ? t.yes : node.value === 'false' ? t.no : node.value;
    if (node.control === 'select') return node.options?.find((option) => option.value === node.value)?.label ?? node.value;
    return node.value;
  };

const factsOf = (questionnaire: Questionnaire) => ({
  product: questionnaire.product,
  brokerName: questionnaire.brokerName,
  customerName: questionnaire.customerName,
});

/** The form with `answers` and the problems found, each on its question and in the summary at the top. */
function renderForm(
  page: LinkPageRequest,
  questionnaire: Questionnaire & { schema: Record<string, unknown> },
  answers: unknown,
  problems: readonly AnswerProblem[],
  status = 200,
): void {
  const form = buildForm(questionnaire.schema, answers, page.lang, page.t);
  const placed = placeProblems(form.nodes, problems, page.lang, page.t);
  const heading = form.title || page.t.questionnaire.title;
  page.render(
    'questionnaire',
    {
      title: placed.summary.length + placed.general.length > 0 ? `${page.t.errorSummary}: ${heading}` : heading,
      heading,
      ...factsOf(questionnaire),
      nodes: form.nodes,
      summary: placed.summary,
      general: placed.general,
      saved: problems.length === 0 && page.req.query.saved === '1',
      action: page.selfPath,
      csrf: page.formToken(),
      version: questionnaire.version,
    },
    { status, script: 'pages.js' },
  );
}

/** The answers after the form's action: one more item of a list (`add:/locations`), one fewer (`remove:/locations/1`). */
function afterAction(
  schema: Record<string, unknown>,
  page: LinkPageRequest,
  answers: Record<string, unknown>,
  action: string,
): { answers: Record<string, unknown>; focus?: string } | undefined {
  if (action === 'save' || action === 'submit') return { answers };
  const [verb, pointer = ''] = action.split(/:(.*)/s);
  if (verb === 'add') {
    const list = findNode(buildForm(schema, answers, page.lang, page.t).nodes, pointer);
    if (list?.kind !== 'list') return undefined;
    const items = Array.isArray(getAt(answers, pointer)) ? (getAt(answers, pointer) as unknown[]) : [];
    if (items.length >= list.maxItems) return { answers };
    return { answers: setAt(answers, pointer, [...items, {}]), focus: `${pointer}/${items.length}` };
  }
  if (verb === 'remove') {
    const at = pointer.lastIndexOf('/');
    const listPointer = pointer.slice(0, at);
    const index = Number(pointer.slice(at + 1));
    const items = getAt(answers, listPointer);
    if (!Array.isArray(items) || !Number.isInteger(index) || index < 0 || index >= items.length) return undefined;
    const kept = items.filter((_, position) => position !== index);
    return { answers: setAt(answers, listPointer, kept), focus: listPointer };
  }
  return undefined;
}

/**
 * The customer's questionnaire (`/questionnaire/{token}`): the tender's question set as a form, drafts saved and
 * submitted through the risk assessment's own service (source CUSTOMER, the same rules as `saveRiskAnswers`), a
 * read-only summary once submitted. Works without JavaScript; its one script only hides conditional questions.
 */
export function questionnairePage(deps: QuestionnaireDeps): LinkPage {
  return {
    kind: LinkKind.QUESTIONNAIRE,

    async get(page) {
      const questionnaire = await openQuestionnaire(page.em, page.link);
      const { schema } = questionnaire;
      if (!schema)
        return page.render('message', {
          title: page.t.questionnaire.title,
          heading: page.t.questionnaire.title,
          text: page.t.questionnaire.noQuestions,
        });
      if (questionnaire.submitted) {
        const form = buildForm(schema, questionnaire.answers, page.lang, page.t);
        return page.render('questionnaire-summary', {
          title: page.t.questionnaire.submittedTitle,
          heading: form.title || page.t.questionnaire.title,
          ...factsOf(questionnaire),
          nodes: form.nodes,
          display: display(page.t),
        });
      }
      if (!questionnaire.answerable) return page.message(409, 'conflict');
      renderForm(page, { ...questionnaire, schema }, questionnaire.answers, []);
    },

    async post(page, fields: FormFields) {
      const questionnaire = await openQuestionnaire(page.em, page.link);
      const { schema } = questionnaire;
      if (!schema || !questionnaire.answerable) return page.message(409, 'conflict');
      const parsed = parseForm(schema, fields, page.lang, page.t);
      const expectedVersion = Number(fields._version);
      const action = fields._action ?? 'save';
      if (parsed.unknown.length > 0 || !Number.isSafeInteger(expectedVersion)) return page.message(400, 'badRequest');
      const acted = afterAction(schema, page, parsed.answers, action);
      if (!acted) return page.message(400, 'badRequest');
      if (parsed.problems.length > 0) return renderForm(page, { ...questionnaire, schema }, acted.answers, parsed.problems, 400);
      try {
        const submit = action === 'submit';
        await saveQuestionnaire(page.em, page.link, { answers: acted.answers, expectedVersion, submit }, deps.riskEvents, page.now);
        // A submission may release quote requests that waited for its answers.
        if (submit) deps.wakeDispatcher();
      } catch (error) {
        if (error instanceof DomainError && error.code === 'BAD_USER_INPUT')
          return renderForm(
            page,
            { ...questionnaire, schema },
            acted.answers,
            error.problems.length > 0 ? error.problems : [{ pointer: '', message: error.message }],
            400,
          );
        throw error;
      }
      page.redirect(action === 'submit' ? {} : { saved: '1' }, acted.focus && idOf(acted.focus));
    },
  };
}
