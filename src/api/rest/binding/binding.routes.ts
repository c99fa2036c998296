import { Router } from 'express';
import type { GraphQLSchema } from 'graphql';
import { AccessSurface, type Operation } from '../../../access';
import { badInput } from '../../../platform/errors/domain-error';
import { LIMITS } from '../../../platform/validation/rules';
import { parseBody } from '../../../platform/validation/validate';
import { CoverOrderDecisionBody, SubjectivityDecisionBody } from '../../../quotes';
import { prepareOperation } from '../../graphql/prepared-operation';
import { jsonBody, methodNotAllowed } from '../../http/json-body';
import { authorisedContext } from '../../http/request-context';
import { INTEGRATION_PREFIX } from '../read-only-apis';
import { assertNoQuery } from '../tenders/tender-query-params';
import {
  REST_ACCEPT_COVER_ORDER,
  REST_DECIDE_SUBJECTIVITY,
  REST_DECLINE_COVER_ORDER,
  REST_TENDER_SUBJECTIVITIES,
} from './binding-operations.graphql';

/** A tender's subjectivities (docs/lifecycle.md, "Binding"): the quoting insurer its own, the broker every one. */
export const SUBJECTIVITY_ROUTES = [
  { path: '/public/v1/tenders/:id/subjectivities', access: 'insurerApi' },
  { path: '/api/v1/tenders/:id/subjectivities', access: 'brokerApi' },
] as const satisfies readonly { path: string; access: Operation }[];

/** The quoting insurer decides on a subjectivity: a write, so under the integration API. */
export const SUBJECTIVITY_DECISION_ROUTE = {
  path: `${INTEGRATION_PREFIX}/subjectivities/:id/decision`,
  access: 'decideSubjectivity',
} as const;

/** The insurer of the ordered option accepts or declines the order. */
export const COVER_ORDER_DECISION_ROUTE = {
  path: `${INTEGRATION_PREFIX}/tenders/:id/cover-order/decision`,
  access: 'acceptCoverOrder',
} as const;

/** Thin shims over the binding's GraphQL operations: the body checked, the prepared operation run, its answer in REST names. */
export function bindingRoutes(schema: GraphQLSchema): Router {
  const list = prepareOperation(schema, REST_TENDER_SUBJECTIVITIES);
  const decide = prepareOperation(schema, REST_DECIDE_SUBJECTIVITY);
  const accept = prepareOperation(schema, REST_ACCEPT_COVER_ORDER);
  const decline = prepareOperation(schema, REST_DECLINE_COVER_ORDER);
  const router = Router();

  for (const route of SUBJECTIVITY_ROUTES) {
    router.get(route.path, async (req, res) => {
      const context = await authorisedContext(res, route.access);
      assertNoQuery(req);
      context.channel = { surface: AccessSurface.REST, operation: `GET ${route.path}` };
      const data = await list.run(context, { tenderId: req.params.id });
      const payload = data.tenderSubjectivities as unknown[];
      res.set('Cache-Control', 'private, no-cache').json({ metadata: { count: String(payload.length) }, payload });
    });
  }

  const decisionPath = SUBJECTIVITY_DECISION_ROUTE.path;
  router.post(decisionPath, ...jsonBody(LIMITS.restBodyBytes), async (req, res) => {
    const context = await authorisedContext(res, SUBJECTIVITY_DECISION_ROUTE.access);
    assertNoQuery(req);
    const body = parseBody(SubjectivityDecisionBody, req.body, 'The decision');
    context.channel = { surface: AccessSurface.REST, operation: `POST ${decisionPath}` };
    const data = await decide.run(context, {
      input: { subjectivityId: req.params.id, decision: body.decision, reason: body.reason ?? null },
    });
    res.json(data.decideSubjectivity);
  });
  router.all(decisionPath, methodNotAllowed('POST'));

  const orderPath = COVER_ORDER_DECISION_ROUTE.path;
  router.post(orderPath, ...jsonBody(LIMITS.restBodyBytes), async (req, res) => {
    const context = await authorisedContext(res, COVER_ORDER_DECISION_ROUTE.access);
    assertNoQuery(req);
    const body = parseBody(CoverOrderDecisionBody, req.body, 'The answer to the order');
    context.channel = { surface: AccessSurface.REST, operation: `POST ${orderPath}` };
    if (body.decision === 'ACCEPT') {
      if (!body.inception_date)
        throw badInput('The answer to the order is invalid', [{ pointer: '/inception_date', message: 'is required to ACCEPT' }]);
      const data = await accept.run(context, { id: req.params.id, inceptionDate: body.inception_date });
      res.json(data.acceptCoverOrder);
      return;
    }
    if (!body.reason) throw badInput('The answer to the order is invalid', [{ pointer: '/reason', message: 'is required to DECLINE' }]);
    const data = await decline.run(context, { id: req.params.id, reason: body.reason });
    res.json(data.declineCoverOrder);
  });
  router.all(orderPath, methodNotAllowed('POST'));
  return router;
}
