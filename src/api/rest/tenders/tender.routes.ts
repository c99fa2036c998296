import type { EntityManager } from '@mikro-orm/core';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import { AccessSurface, type Operation, type Viewer } from '../../../access';
import { prepareOperation } from '../../graphql/prepared-operation';
import { LIMITS } from '../../../platform/validation/rules';
import { authorisedContext, requestScopeOf } from '../../http/request-context';
import { jsonBody, methodNotAllowed } from '../../http/json-body';
import { badInput, type FieldProblem } from '../../../platform/errors/domain-error';
import { answeredAsCurrent, conditionalRead, representationOf } from '../../http/entity-tag';
import { currentRevisionOf, feedRevisionOf, ALL_STATUSES, OPEN_STATUSES, TenderStatus } from '../../../tenders';
import { assertNoQuery, pageOf, parseListQuery, parsePolicyDocumentation, queryValues } from './tender-query-params';
import {
  REST_CONFIRM_POLICY_DOCUMENTATION,
  REST_TENDER_ACCESS_LOG,
  REST_TENDER_BY_ID,
  REST_TENDER_LIST,
} from './tender-operations.graphql';
import { INTEGRATION_PREFIX } from '../read-only-apis';
import { announceDeprecation, type Deprecation } from '../deprecation';
import { recordKeptReads, recordingReads, type KeptResponse, type KeptResponses } from '../../http/kept-responses';
import type { LaneRoute } from '../../http/direct-lane';

interface ListRoute {
  path: string;
  /** The route's summary in the OpenAPI document, which is built from this table. */
  summary: string;
  statuses: readonly TenderStatus[];
  /** The access policy's entry for this surface. */
  access: Operation;
  /** Set when the route is on its way out: its answers announce it (docs/versioning.md). */
  deprecated?: Deprecation;
}

/** Spec 4.1 and 4.2; `/public/v1/tenders/open` serves insurers and brokers, `/api/v1/tenders/open` is its broker alias. */
export const LIST_ROUTES: readonly ListRoute[] = [
  { path: '/public/v1/tenders', summary: 'Tenders the insurer was invited to', statuses: ALL_STATUSES, access: 'insurerApi' },
  { path: '/public/v1/tenders/open', summary: 'Open tenders', statuses: OPEN_STATUSES, access: 'openTenders' },
  { path: '/public/v1/tenders/successful', summary: 'Successful tenders', statuses: [TenderStatus.SUCCESSFUL], access: 'insurerApi' },
  { path: '/public/v1/tenders/closed', summary: 'Closed tenders', statuses: [TenderStatus.CLOSED], access: 'insurerApi' },
  { path: '/api/v1/tenders', summary: "The broker company's tenders", statuses: ALL_STATUSES, access: 'brokerApi' },
  {
    path: '/api/v1/tenders/open',
    summary: 'Open tenders (alias of /public/v1/tenders/open)',
    statuses: OPEN_STATUSES,
    access: 'brokerApi',
  },
  { path: '/api/v1/tenders/successful', summary: 'Successful tenders', statuses: [TenderStatus.SUCCESSFUL], access: 'brokerApi' },
  { path: '/api/v1/tenders/closed', summary: 'Closed tenders', statuses: [TenderStatus.CLOSED], access: 'brokerApi' },
];

export const ITEM_ROUTES: readonly { path: string; access: Operation }[] = [
  { path: '/public/v1/tenders/:id', access: 'insurerApi' },
  { path: '/api/v1/tenders/:id', access: 'brokerApi' },
];

/** Who read the tender's personal data (docs/privacy.md): its broker and internal users; a 404 for insurers. */
export const ACCESS_LOG_ROUTE = { path: '/api/v1/tenders/:id/access-log', access: 'tenderAccessLog' } as const;

/** The insurer confirms the policy documentation of a tender it won (DESIGN 3): a write, so outside the read APIs. */
export const POLICY_DOCUMENTATION_ROUTE = {
  path: `${INTEGRATION_PREFIX}/tenders/:id/policy-documentation`,
  access: 'confirmPolicyDocumentation',
} as const;

/**
 * The viewer's revision the answer's ETag is made of. A poll (If-None-Match) is mostly answered 304, so it reads the
 * revision without forking an EntityManager (a tenth of the 304's cost); a full read reads it through the request's
 * fork, where the operation's counts find it again. A poll whose page changed thus reads it twice, and its answer may
 * be newer than its tag: the next poll is then answered in full once more, never a stale 304.
 */
function revisionToTag(req: Request, res: Response, context: { em: EntityManager; viewer: Viewer }): Promise<string> {
  return req.headers['if-none-match'] === undefined
    ? feedRevisionOf(context.em, context.viewer)
    : currentRevisionOf(requestScopeOf(res).sharedEm, context.viewer);
}

/**
 * A JSON answer from its bytes: the headers `res.json` gives, and no serialisation. Not `res.send`: its freshness
 * check and type lookup are already done (`conditionalRead`). A HEAD gets the same headers; Node leaves the body out.
 */
function sendJson(res: Response, response: Pick<KeptResponse, 'body' | 'headers'>): void {
  for (const name in response.headers) res.setHeader(name, response.headers[name]);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', response.body.length);
  res.end(response.body);
}

/**
 * Thin shims: parameters → variables, the prepared GraphQL operation, its result → the envelope of spec 2.2.
 * Reads carry an ETag from the viewer's feed revision (tenders/feed), so a poll that finds nothing new is a 304
 * that never runs the operation; an answer made at a revision is kept (`kept`, per audience and request), so the
 * same read at the same revision, by whichever client of the audience, is answered from its bytes. The reads are
 * also given as `lane` routes: the same handlers, for the app's direct lane (http/direct-lane.ts).
 */
export function tenderRoutes(schema: GraphQLSchema, kept: KeptResponses): { router: Router; lane: LaneRoute[] } {
  const list = prepareOperation(schema, REST_TENDER_LIST);
  const byId = prepareOperation(schema, REST_TENDER_BY_ID);
  const confirmPolicy = prepareOperation(schema, REST_CONFIRM_POLICY_DOCUMENTATION);
  const accessLog = prepareOperation(schema, REST_TENDER_ACCESS_LOG);
  const listRepresentation = representationOf(REST_TENDER_LIST);
  const itemRepresentation = representationOf(REST_TENDER_BY_ID);
  const router = Router();
  const lane: LaneRoute[] = [];
  const read = (path: string, ...handlers: RequestHandler[]) => {
    router.get(path, ...handlers);
    lane.push({ path, handlers });
  };

  for (const route of LIST_ROUTES) {
    read(route.path, ...(route.deprecated ? [announceDeprecation(route.deprecated)] : []), async (req, res) => {
      const context = await authorisedContext(res, route.access);
      const { variables, sortEcho } = parseListQuery(req, route.statuses);
      const revision = await revisionToTag(req, res, context);
      const tagged = conditionalRead(req, res, [listRepresentation, req.originalUrl, revision], { exists: true });
      if (!tagged) return;
      context.channel = { surface: AccessSurface.REST, operation: `GET ${route.path}` };
      // After the checks every request passes (rate limit, token standing, access policy, query): only the work is saved.
      const key = kept.keyOf(context.viewer, revision, req.originalUrl);
      const found = kept.find(key);
      if (found) {
        recordKeptReads(context, found);
        return sendJson(res, found);
      }
      const { value: data, reads } = await recordingReads(context, () => list.run(context, { ...variables }));
      const page = data.tenders as { count: number; skip: number; limit: number; next: string | null; items: unknown[] };
      const body = Buffer.from(
        JSON.stringify({
          metadata: { count: String(page.count), skip: String(page.skip), limit: String(page.limit), sort: sortEcho, next: page.next },
          payload: page.items,
        }),
      );
      kept.keep(key, { body, headers: tagged, reads });
      sendJson(res, { body, headers: tagged });
    });
  }

  // The mutation checks that the viewer is the insurer of the ordered option.
  const policyPath = POLICY_DOCUMENTATION_ROUTE.path;
  router.post(policyPath, ...jsonBody(LIMITS.restBodyBytes), async (req, res) => {
    const context = await authorisedContext(res, POLICY_DOCUMENTATION_ROUTE.access);
    assertNoQuery(req);
    const { policyNumber, confirmedAt, documentId } = parsePolicyDocumentation(req.body);
    context.channel = { surface: AccessSurface.REST, operation: `POST ${policyPath}` };
    const data = await confirmPolicy.run(context, { id: req.params.id, policyNumber, confirmedAt, documentId });
    res.json(data.confirmPolicyDocumentation);
  });
  router.all(policyPath, methodNotAllowed('POST'));

  // No ETag: the log grows with every read of the tender, so it is read fresh each time.
  router.get(ACCESS_LOG_ROUTE.path, async (req, res) => {
    const context = await authorisedContext(res, ACCESS_LOG_ROUTE.access);
    const problems: FieldProblem[] = [];
    const page = pageOf(queryValues(req, ['skip', 'limit'], problems), problems);
    if (problems.length > 0) throw badInput('The query parameters are invalid', problems);
    const data = await accessLog.run(context, { tenderId: req.params.id, ...page });
    const log = data.tenderAccessLog as { count: number; skip: number; limit: number; items: { role: string }[] };
    res.set('Cache-Control', 'private, no-cache').json({
      metadata: { count: String(log.count), skip: String(log.skip), limit: String(log.limit), sort: {} },
      // The role as tokens and the specification name it (GraphQL shows its enum's names).
      payload: log.items.map((entry) => ({ ...entry, role: entry.role.toLowerCase() })),
    });
  });

  for (const route of ITEM_ROUTES) {
    read(route.path, async (req, res) => {
      const context = await authorisedContext(res, route.access);
      assertNoQuery(req);
      const revision = await revisionToTag(req, res, context);
      const tagged = conditionalRead(req, res, [itemRepresentation, req.originalUrl, revision], { exists: false });
      if (!tagged) return;
      context.channel = { surface: AccessSurface.REST, operation: `GET ${route.path}` };
      const key = kept.keyOf(context.viewer, revision, req.originalUrl);
      const found = kept.find(key);
      if (found) {
        recordKeptReads(context, found);
        if (answeredAsCurrent(req, res, tagged)) return;
        return sendJson(res, found);
      }
      // Only an answer is kept: a tender the viewer may not see is a 404 each time, read again.
      const { value: data, reads } = await recordingReads(context, () => byId.run(context, { id: req.params.id }));
      const body = Buffer.from(JSON.stringify(data.tender));
      kept.keep(key, { body, headers: tagged, reads });
      if (answeredAsCurrent(req, res, tagged)) return;
      sendJson(res, { body, headers: tagged });
    });
  }
  return { router, lane };
}
