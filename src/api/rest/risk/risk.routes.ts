import { Router, type Request } from 'express';
import type { GraphQLSchema } from 'graphql';
import { AccessSurface, NO_ACCESS_RECORDS, recordRead, type Operation } from '../../../access';
import { badInput, DomainError, notFound, type FieldProblem } from '../../../platform/errors/domain-error';
import { LIMITS } from '../../../platform/validation/rules';
import { parseBody } from '../../../platform/validation/validate';
import { answersShapeProblems, RiskAnswersBody } from '../../../risk';
import { prepareOperation } from '../../graphql/prepared-operation';
import { noneMatches } from '../../http/entity-tag';
import { jsonBody, methodNotAllowed } from '../../http/json-body';
import { authorisedContext } from '../../http/request-context';
import { INTEGRATION_PREFIX } from '../read-only-apis';
import { inBodyTerms } from '../body-terms';
import { assertNoQuery, queryValues } from '../tenders/tender-query-params';
import { REST_QUESTION_SET, REST_QUESTION_SETS, REST_RISK_ASSESSMENT, REST_SAVE_RISK_ANSWERS } from './risk-operations.graphql';

/** Question sets are read by every role's API (docs/risk-assessment.md): insurers under /public/v1, brokers under /api/v1. */
export const QUESTION_SET_ROUTES: readonly { prefix: string; access: Operation }[] = [
  { prefix: '/public/v1/question-sets', access: 'insurerApi' },
  { prefix: '/api/v1/question-sets', access: 'brokerApi' },
];

/** A tender's risk assessment: an invited insurer its required answers (never once closed), the broker all, with sources. */
export const ASSESSMENT_ROUTES = [
  { path: '/public/v1/tenders/:id/risk-assessment', access: 'insurerApi' },
  { path: '/api/v1/tenders/:id/risk-assessment', access: 'brokerApi' },
] as const satisfies readonly { path: string; access: Operation }[];

/** Saving the answers is a write, so it is outside the read APIs (DESIGN 7), the REST form of saveRiskAnswers. */
export const SAVE_ASSESSMENT_ROUTE = {
  path: `${INTEGRATION_PREFIX}/tenders/:id/risk-assessment`,
  access: 'saveRiskAnswers',
} as const;

/** The largest version GraphQL's Int holds: a larger one names no set, and is refused as malformed. */
const MAX_VERSION = 2_147_483_647;

/** `{version}`: a positive whole number, or `latest` (undefined: the product's latest version that is not retired). */
function versionOf(segment: string): number | undefined {
  if (segment === 'latest') return undefined;
  const version = /^[1-9]\d{0,9}$/.test(segment) ? Number(segment) : NaN;
  if (!(version <= MAX_VERSION))
    throw badInput('The version is invalid', [
      { parameter: 'version', message: `must be latest or a whole number from 1 to ${MAX_VERSION}` },
    ]);
  return version;
}

/** The list's one parameter, `product`: given once and not empty. */
function productFilter(req: Request): string | undefined {
  const problems: FieldProblem[] = [];
  const { product } = queryValues(req, ['product'], problems);
  if (product === '') problems.push({ parameter: 'product', message: 'must not be empty; leave it out for every product' });
  if (problems.length > 0) throw badInput('The query parameters are invalid', problems);
  return product;
}

interface RestQuestionSet {
  version: number;
  digest: string;
  retired_at: string | null;
}

/**
 * Strong, from the schema's SHA-256: the digest names the schema, the version what `latest` stood for (a schema may be
 * published again under a new version) and `-retired` the one change a version takes after publication.
 */
const tagOf = (set: RestQuestionSet): string => `"${set.version}-${set.digest}${set.retired_at ? '-retired' : ''}"`;

/** The mutation's input names (its CONFLICT and `source` problems) as pointers into the REST body; the answers' own problems keep theirs. */
const BODY_POINTERS: Record<string, string> = {
  expectedVersion: '/expected_version',
  source: '/source',
  submit: '/submit',
  confirm: '/confirm',
};

/**
 * Thin shims over the risk operations: parameters and the body checked, the prepared GraphQL operation run, its
 * result in snake_case. The answers' problems come as the mutation reports them, at their pointers into the answers.
 */
export function riskRoutes(schema: GraphQLSchema): Router {
  const list = prepareOperation(schema, REST_QUESTION_SETS);
  const one = prepareOperation(schema, REST_QUESTION_SET);
  const assessment = prepareOperation(schema, REST_RISK_ASSESSMENT);
  const save = prepareOperation(schema, REST_SAVE_RISK_ANSWERS);
  const router = Router();

  for (const { prefix, access } of QUESTION_SET_ROUTES) {
    router.get(prefix, async (req, res) => {
      const context = await authorisedContext(res, access);
      const data = await list.run(context, { product: productFilter(req) });
      const sets = data.questionSets as unknown[];
      res.set('Cache-Control', 'private, no-cache').json({ metadata: { count: String(sets.length) }, payload: sets });
    });

    router.get(`${prefix}/:product/:version`, async (req, res) => {
      const context = await authorisedContext(res, access);
      assertNoQuery(req);
      const version = versionOf(req.params.version);
      const data = await one.run(context, { product: req.params.product, version });
      const set = data.questionSet as RestQuestionSet;
      const headers = { ETag: tagOf(set), 'Cache-Control': 'private, no-cache' };
      if (!noneMatches(req.headers['if-none-match'], headers.ETag)) {
        res.set(headers).status(304).end();
        return;
      }
      res.set(headers).json(set);
    });
  }

  for (const route of ASSESSMENT_ROUTES) {
    router.get(route.path, async (req, res) => {
      const context = await authorisedContext(res, route.access);
      assertNoQuery(req);
      const tenderId = req.params.id;
      // The operation reads the tender to reach its assessment; the answer carries the assessment alone, so the
      // route records that one read, and only when it goes out (not for a 404).
      const accessLog = context.accessLog;
      context.accessLog = NO_ACCESS_RECORDS;
      const data = await assessment.run(context, { id: tenderId }).finally(() => (context.accessLog = accessLog));
      const found = (data.tender as { risk_assessment: unknown }).risk_assessment;
      if (!found) throw notFound(`Tender ${tenderId} has no risk assessment this client may read`);
      context.channel = { surface: AccessSurface.REST, operation: `GET ${route.path}` };
      recordRead(context, tenderId, 'riskAssessment');
      res.set('Cache-Control', 'private, no-cache').json(found);
    });
  }

  const savePath = SAVE_ASSESSMENT_ROUTE.path;
  router.put(savePath, ...jsonBody(LIMITS.riskAnswersBodyBytes), async (req, res) => {
    const context = await authorisedContext(res, SAVE_ASSESSMENT_ROUTE.access);
    assertNoQuery(req);
    const body = parseBody(RiskAnswersBody, req.body, 'The save');
    // Before GraphQL's JSON scalar, whose own refusal of deep answers names no pointer: the service's first check.
    const shape = answersShapeProblems(body.answers);
    if (shape.length > 0) throw new DomainError('BAD_USER_INPUT', 'The answers are invalid', [], shape);
    context.channel = { surface: AccessSurface.REST, operation: `PUT ${savePath}` };
    const data = await inBodyTerms(
      save.run(context, {
        tenderId: req.params.id,
        answers: body.answers,
        expectedVersion: body.expected_version,
        submit: body.submit,
        source: body.source,
        confirm: body.confirm,
      }),
      BODY_POINTERS,
    );
    res.set('Cache-Control', 'no-store').json(data.saveRiskAnswers);
  });
  router.all(savePath, methodNotAllowed('PUT'));
  return router;
}
