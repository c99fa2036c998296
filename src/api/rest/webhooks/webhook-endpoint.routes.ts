import { Router, type Request, type Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { Operation } from '../../../access';
import { badInput, type FieldProblem } from '../../../platform/errors/domain-error';
import { EmptyBody, LIMITS } from '../../../platform/validation/rules';
import { parseBody } from '../../../platform/validation/validate';
import {
  WebhookDeliveryStatus,
  WebhookEndpointBody,
  WebhookEndpointChangeBody,
  WebhookEventType,
  WebhookReplayBody,
} from '../../../webhooks';
import { prepareOperation } from '../../graphql/prepared-operation';
import { jsonBody, methodNotAllowed } from '../../http/json-body';
import { authorisedContext } from '../../http/request-context';
import {
  REST_CREATE_WEBHOOK_ENDPOINT,
  REST_DELETE_WEBHOOK_ENDPOINT,
  REST_REPLAY_WEBHOOK_DELIVERIES,
  REST_ROTATE_WEBHOOK_SECRET,
  REST_UPDATE_WEBHOOK_ENDPOINT,
  REST_WEBHOOK_DELIVERIES,
  REST_WEBHOOK_ENDPOINT,
  REST_WEBHOOK_ENDPOINTS,
} from './webhook-operations.graphql';
import { assertNoQuery, pageOf, queryValues } from '../tenders/tender-query-params';
import { INTEGRATION_PREFIX } from '../read-only-apis';
import { inBodyTerms } from '../body-terms';

/**
 * Insurer and broker clients each manage their own endpoints here (the operations scope them to the token's client);
 * internal users manage any client's through GraphQL. Writes, so outside the read APIs (DESIGN 7).
 */
export const WEBHOOK_ROUTES: readonly { prefix: string; access: Operation }[] = [
  { prefix: `${INTEGRATION_PREFIX}/webhook-endpoints`, access: 'clientWebhooks' },
];

/** GraphQL's enum names (TENDER_STATUS_CHANGED) ↔ the event types on the wire (tender.status_changed). */
const NAME_OF = new Map(Object.entries(WebhookEventType).map(([name, value]) => [value as string, name]));
const VALUE_OF = new Map(Object.entries(WebhookEventType).map(([name, value]) => [name, value as string]));

function eventNames(types: string[] | undefined, problems: FieldProblem[]): string[] | undefined {
  if (!types) return undefined;
  const unknown = types.filter((type) => !NAME_OF.has(type));
  if (unknown.length > 0)
    problems.push({
      pointer: '/event_types',
      message: `unknown event types ${unknown.join(', ')}; known: ${[...NAME_OF.keys()].join(', ')}`,
    });
  return types.map((type) => NAME_OF.get(type) ?? type);
}

/** The REST body's fields by the GraphQL input names the service reports problems under. */
const BODY_POINTERS: Record<string, string> = {
  url: '/url',
  eventTypes: '/event_types',
  description: '/description',
  enabled: '/enabled',
  since: '/since',
};

type RestEndpoint = Record<string, unknown> & { _id: string; event_types: string[] };
const onTheWire = (endpoint: RestEndpoint) => ({
  ...endpoint,
  event_types: endpoint.event_types.map((name) => VALUE_OF.get(name) ?? name),
});
const created = ({ endpoint, secret }: { endpoint: RestEndpoint; secret: string }) => ({ ...onTheWire(endpoint), secret });

const DELIVERY_PARAMETERS = ['status', 'skip', 'limit'];

function deliveryQuery(req: Request): { status?: string; skip: number; limit: number } {
  const problems: FieldProblem[] = [];
  const values = queryValues(req, DELIVERY_PARAMETERS, problems);
  const page = { skip: 0, limit: LIMITS.defaultPageSize, ...pageOf(values, problems) };
  const statuses = Object.values(WebhookDeliveryStatus) as string[];
  if (values.status !== undefined && !statuses.includes(values.status))
    problems.push({ parameter: 'status', message: `must be one of ${statuses.join(', ')}` });
  if (problems.length > 0) throw badInput('The query parameters are invalid', problems);
  return { ...page, status: values.status };
}

/** Thin shims over the webhook operations: bodies checked by the rules, event types translated, the GraphQL result reshaped. */
export function webhookEndpointRoutes(schema: GraphQLSchema): Router {
  const list = prepareOperation(schema, REST_WEBHOOK_ENDPOINTS);
  const one = prepareOperation(schema, REST_WEBHOOK_ENDPOINT);
  const create = prepareOperation(schema, REST_CREATE_WEBHOOK_ENDPOINT);
  const update = prepareOperation(schema, REST_UPDATE_WEBHOOK_ENDPOINT);
  const rotate = prepareOperation(schema, REST_ROTATE_WEBHOOK_SECRET);
  const remove = prepareOperation(schema, REST_DELETE_WEBHOOK_ENDPOINT);
  const deliveries = prepareOperation(schema, REST_WEBHOOK_DELIVERIES);
  const replay = prepareOperation(schema, REST_REPLAY_WEBHOOK_DELIVERIES);
  const router = Router();
  const json = jsonBody(LIMITS.restBodyBytes);

  for (const { prefix, access } of WEBHOOK_ROUTES) {
    const authorised = (res: Response) => authorisedContext(res, access);

    router.get(prefix, async (req, res) => {
      const context = await authorised(res);
      assertNoQuery(req);
      const data = await list.run(context, {});
      res.json((data.webhookEndpoints as RestEndpoint[]).map(onTheWire));
    });
    router.post(prefix, ...json, async (req, res) => {
      const context = await authorised(res);
      assertNoQuery(req);
      const body = parseBody(WebhookEndpointBody, req.body, 'The webhook endpoint');
      const problems: FieldProblem[] = [];
      const eventTypes = eventNames(body.event_types, problems);
      if (problems.length > 0) throw badInput('The webhook endpoint is invalid', problems);
      const data = await inBodyTerms(
        create.run(context, { input: { url: body.url, eventTypes, description: body.description } }),
        BODY_POINTERS,
      );
      const result = created(data.created as { endpoint: RestEndpoint; secret: string });
      res.status(201).setHeader('Location', `${prefix}/${encodeURIComponent(result._id)}`);
      res.setHeader('Cache-Control', 'no-store');
      res.json(result);
    });
    router.all(prefix, methodNotAllowed('GET, HEAD, POST'));

    const item = `${prefix}/:id`;
    router.get(item, async (req, res) => {
      const context = await authorised(res);
      assertNoQuery(req);
      const data = await one.run(context, { id: req.params.id });
      res.json(onTheWire(data.webhookEndpoint as RestEndpoint));
    });
    router.patch(item, ...json, async (req, res) => {
      const context = await authorised(res);
      assertNoQuery(req);
      const body = parseBody(WebhookEndpointChangeBody, req.body, 'The change');
      const problems: FieldProblem[] = [];
      const eventTypes = eventNames(body.event_types, problems);
      if (problems.length > 0) throw badInput('The change is invalid', problems);
      const data = await inBodyTerms(
        update.run(context, {
          id: req.params.id,
          input: { url: body.url, eventTypes, description: body.description, enabled: body.enabled },
        }),
        BODY_POINTERS,
      );
      res.json(onTheWire(data.updateWebhookEndpoint as RestEndpoint));
    });
    router.delete(item, async (req, res) => {
      const context = await authorised(res);
      assertNoQuery(req);
      await remove.run(context, { id: req.params.id });
      res.status(204).end();
    });
    router.all(item, methodNotAllowed('GET, HEAD, PATCH, DELETE'));

    const rotatePath = `${item}/rotate-secret`;
    router.post(rotatePath, ...json, async (req, res) => {
      const context = await authorised(res);
      assertNoQuery(req);
      if (req.body !== undefined) parseBody(EmptyBody, req.body, 'The rotation');
      const data = await rotate.run(context, { id: req.params.id });
      res.setHeader('Cache-Control', 'no-store');
      res.json(created(data.created as { endpoint: RestEndpoint; secret: string }));
    });
    router.all(rotatePath, methodNotAllowed('POST'));

    const deliveriesPath = `${item}/deliveries`;
    router.get(deliveriesPath, async (req, res) => {
      const context = await authorised(res);
      const { status, skip, limit } = deliveryQuery(req);
      const data = await deliveries.run(context, { id: req.params.id, status, skip, limit });
      const page = data.webhookDeliveries as { count: number; skip: number; limit: number; items: { event_type: string }[] };
      res.json({
        metadata: { count: String(page.count), skip: String(page.skip), limit: String(page.limit) },
        payload: page.items.map((delivery) => ({ ...delivery, event_type: VALUE_OF.get(delivery.event_type) ?? delivery.event_type })),
      });
    });
    router.all(deliveriesPath, methodNotAllowed('GET, HEAD'));

    const replayPath = `${item}/replay`;
    router.post(replayPath, ...json, async (req, res) => {
      const context = await authorised(res);
      assertNoQuery(req);
      const { since } = parseBody(WebhookReplayBody, req.body, 'The replay');
      const data = await inBodyTerms(replay.run(context, { id: req.params.id, since }), BODY_POINTERS);
      res.json({ requeued: data.replayWebhookDeliveries });
    });
    router.all(replayPath, methodNotAllowed('POST'));
  }
  return router;
}
