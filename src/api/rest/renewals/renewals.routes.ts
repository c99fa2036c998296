import { Router } from 'express';
import type { GraphQLSchema } from 'graphql';
import { AccessSurface } from '../../../access';
import { badInput, type FieldProblem } from '../../../platform/errors/domain-error';
import { LIMITS, Timestamp } from '../../../platform/validation/rules';
import { parseTimestamp } from '../../../platform/validation/timestamp';
import { prepareOperation } from '../../graphql/prepared-operation';
import { authorisedContext } from '../../http/request-context';
import { queryValues } from '../tenders/tender-query-params';
import { REST_RENEWALS } from './renewals-operations.graphql';

/** What is due (docs/renewals.md): the broker API's read of its company's renewals, internal users' of all. */
export const RENEWALS_ROUTE = { path: '/api/v1/renewals', access: 'brokerApi' } as const;

export const RENEWAL_STATUSES = ['OPEN', 'NOTICE_GIVEN', 'DEADLINE_PASSED'] as const;
const PARAMETERS = ['due_before', 'status', 'limit'];

/** The REST form of the renewals query: reads only; an unknown, repeated or malformed parameter is a 400. */
export function renewalsRoutes(schema: GraphQLSchema): Router {
  const list = prepareOperation(schema, REST_RENEWALS);
  const router = Router();
  router.get(RENEWALS_ROUTE.path, async (req, res) => {
    const context = await authorisedContext(res, RENEWALS_ROUTE.access);
    const problems: FieldProblem[] = [];
    const values = queryValues(req, PARAMETERS, problems);
    const dueBefore = values.due_before === undefined ? undefined : parseTimestamp(values.due_before);
    if (values.due_before === undefined) problems.push({ parameter: 'due_before', message: 'is required' });
    else if (!dueBefore) problems.push({ parameter: 'due_before', message: `must be ${Timestamp.description}` });
    if (values.status !== undefined && !(RENEWAL_STATUSES as readonly string[]).includes(values.status))
      problems.push({ parameter: 'status', message: `must be one of ${RENEWAL_STATUSES.join(', ')}` });
    const limit = values.limit === undefined ? undefined : Number(values.limit);
    if (limit !== undefined && (!/^\d+$/.test(values.limit) || limit < 1 || limit > LIMITS.pageSize))
      problems.push({ parameter: 'limit', message: `an integer from 1 to ${LIMITS.pageSize}` });
    if (problems.length > 0) throw badInput('The query parameters are invalid', problems);
    context.channel = { surface: AccessSurface.REST, operation: `GET ${RENEWALS_ROUTE.path}` };
    const data = await list.run(context, { dueBefore: dueBefore!.toISOString(), status: values.status ?? null, limit: limit ?? null });
    const payload = (data.renewals as { tender: unknown }[]).map((renewal) => renewal.tender);
    res.set('Cache-Control', 'private, no-cache').json({ metadata: { count: String(payload.length) }, payload });
  });
  return router;
}
