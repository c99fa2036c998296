import { Router, type Request } from 'express';
import type { GraphQLSchema } from 'graphql';
import { AccessSurface, type Operation } from '../../../access';
import { badInput, type FieldProblem } from '../../../platform/errors/domain-error';
import { prepareOperation } from '../../graphql/prepared-operation';
import { authorisedContext } from '../../http/request-context';
import { assertNoQuery, queryValues } from '../tenders/tender-query-params';
import { REST_TENDER_MESSAGES } from './message-operations.graphql';

/**
 * A tender's clarification threads (docs/people.md): the insurer its own under /public/v1, the broker every thread
 * (or one, `?insurer_id=`) under /api/v1. Posting is GraphQL's postTenderMessage.
 */
export const MESSAGE_ROUTES = [
  { path: '/public/v1/tenders/:id/messages', access: 'insurerApi', byInsurer: false },
  { path: '/api/v1/tenders/:id/messages', access: 'brokerApi', byInsurer: true },
] as const satisfies readonly { path: string; access: Operation; byInsurer: boolean }[];

/** The broker's one parameter, `insurer_id`: given once and not empty. */
function insurerFilter(req: Request): string | undefined {
  const problems: FieldProblem[] = [];
  const { insurer_id: insurerId } = queryValues(req, ['insurer_id'], problems);
  if (insurerId === '') problems.push({ parameter: 'insurer_id', message: 'must not be empty; leave it out for every thread' });
  if (problems.length > 0) throw badInput('The query parameters are invalid', problems);
  return insurerId;
}

/** Thin shims over `tenderMessages`: the parameters checked, the prepared operation run, the messages in the spec's envelope. */
export function messageRoutes(schema: GraphQLSchema): Router {
  const messages = prepareOperation(schema, REST_TENDER_MESSAGES);
  const router = Router();
  for (const route of MESSAGE_ROUTES) {
    router.get(route.path, async (req, res) => {
      const context = await authorisedContext(res, route.access);
      let insurerId: string | undefined;
      if (route.byInsurer) insurerId = insurerFilter(req);
      else assertNoQuery(req);
      // The resolver records the read of the messages' text, on this route.
      context.channel = { surface: AccessSurface.REST, operation: `GET ${route.path}` };
      const data = await messages.run(context, { tenderId: req.params.id, insurerId });
      const payload = data.tenderMessages as unknown[];
      res.set('Cache-Control', 'private, no-cache').json({ metadata: { count: String(payload.length) }, payload });
    });
  }
  return router;
}
