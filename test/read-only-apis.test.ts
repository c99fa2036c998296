import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access/role';
import { Tender } from '../src/tenders/tender.entity';
import { TenderStatus } from '../src/tenders/tender-status';
import { WebhookEndpoint } from '../src/webhooks/webhook-endpoint.entity';
import { createTender, receivedQuote } from './helpers/fixtures';
import { getJson, json, restRequest } from './helpers/gateway';
import { withGateway } from './helpers/scene';

/**
 * Spec sections 1 and 4, DESIGN 7: the two tender read APIs only read. Every method but GET and HEAD under
 * /public/v1 and /api/v1 is a 405 naming GET and HEAD; the writes that used to live there are at /integration/v1.
 */
const ORIGIN = 'https://ui.tender.example';
const tokens = {} as { insurer: string; broker: string; internal: string };
let successful: Tender;

const scene = withGateway({
  per: 'file',
  env: { CORS_ORIGINS: ORIGIN, RATE_LIMIT_PER_MINUTE: '10000', WEBHOOK_URL_ALLOW: '127.0.0.1' },
  world: true,
});

beforeAll(async () => {
  tokens.insurer = await scene.token(Role.INSURER);
  tokens.broker = await scene.token(Role.BROKER);
  tokens.internal = await scene.token(Role.INTERNAL);
  const em = scene.gateway.em();
  successful = await createTender(em, scene.world, { status: TenderStatus.SUCCESSFUL, awardedInsurer: scene.world.insurers[0] });
  successful.orderedOption = await receivedQuote(em, successful, scene.world.insurers[0]);
  await em.flush();
});
const send = (method: string, path: string, token: string, body?: unknown) => restRequest(scene.gateway, method, path, token, body);

const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];
const readApiPaths = (id: string) => [
  ...['/public/v1', '/api/v1'].flatMap((prefix) => [
    `${prefix}/tenders`,
    `${prefix}/tenders/open`,
    `${prefix}/tenders/successful`,
    `${prefix}/tenders/closed`,
    `${prefix}/tenders/${id}`,
    `${prefix}/webhook-endpoints`,
    `${prefix}/webhook-endpoints/${id}`,
    `${prefix}/webhook-endpoints/${id}/rotate-secret`,
    `${prefix}/webhook-endpoints/${id}/replay`,
    `${prefix}/webhook-endpoints/${id}/deliveries`,
    `${prefix}/no/such/path`,
    prefix,
  ]),
  `/public/v1/tenders/${id}/policy-documentation`,
];

describe('the read APIs only read', () => {
  it('answers POST, PUT, PATCH and DELETE anywhere under /public/v1 and /api/v1 with a 405 problem and Allow: GET, HEAD, known and unknown paths alike', async () => {
    const refused: string[] = [];
    for (const path of readApiPaths(successful.id)) {
      for (const method of WRITE_METHODS) {
        const token = path.startsWith('/api/') ? tokens.broker : tokens.insurer;
        const { status, headers, body } = await send(method, path, token, {
          url: 'http://127.0.0.1:9/hook',
          event_types: ['tender.status_changed'],
          policy_number: 'P-1',
          since: '2026-01-01T00:00:00Z',
        });
        const answer = { status, allow: headers.get('allow'), type: headers.get('content-type')?.split(';')[0], code: body?.code };
        if (
          JSON.stringify(answer) !==
          JSON.stringify({ status: 405, allow: 'GET, HEAD', type: 'application/problem+json', code: 'METHOD_NOT_ALLOWED' })
        ) {
          refused.push(`${method} ${path}: ${JSON.stringify(answer)}`);
        }
      }
    }
    expect(refused).toEqual([]);
  });

  it('still answers GET and HEAD, and GET of an unknown path is a 404 problem', async () => {
    const head = await fetch(`${scene.gateway.url}/public/v1/tenders`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${tokens.insurer}` },
    });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect((await getJson(scene.gateway, `/api/v1/tenders/${successful.id}`, tokens.broker)).status).toBe(200);
    const unknown = await getJson(scene.gateway, '/public/v1/no/such/path', tokens.insurer);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('answers a CORS preflight from an allowed origin, and any other OPTIONS with 405', async () => {
    const preflight = await fetch(`${scene.gateway.url}/public/v1/tenders`, {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    const plain = await fetch(`${scene.gateway.url}/public/v1/tenders`, { method: 'OPTIONS' });
    expect(plain.status).toBe(405);
    expect(plain.headers.get('allow')).toBe('GET, HEAD');
  });

  it('tells an integrator who writes to an old path where the write went, and changes nothing', async () => {
    const confirm = await send('POST', `/public/v1/tenders/${successful.id}/policy-documentation`, tokens.insurer, {
      policy_number: 'POL-OLD-PATH',
    });
    expect(confirm.status).toBe(405);
    expect(confirm.body.detail).toContain(`POST /integration/v1/tenders/${successful.id}/policy-documentation`);
    const create = await send('POST', '/api/v1/webhook-endpoints', tokens.broker, {
      url: 'http://127.0.0.1:9/hook',
      event_types: ['tender.status_changed'],
    });
    expect(create.status).toBe(405);
    expect(create.body.detail).toContain('/integration/v1/webhook-endpoints');
    const list = await send('GET', '/public/v1/webhook-endpoints', tokens.insurer);
    expect(list.status).toBe(404);
    expect(list.body.detail).toContain('/integration/v1/webhook-endpoints');

    // An endpoint made at the new place is neither changed nor removed through the old one.
    const made = await send('POST', '/integration/v1/webhook-endpoints', tokens.broker, {
      url: 'http://127.0.0.1:9/kept',
      event_types: ['tender.status_changed'],
    });
    expect(made.status).toBe(201);
    const oldItem = `/api/v1/webhook-endpoints/${made.body._id}`;
    expect((await send('PATCH', oldItem, tokens.broker, { enabled: false, description: 'changed' })).body.detail).toContain(
      `/integration/v1/webhook-endpoints/${made.body._id}`,
    );
    expect((await send('POST', `${oldItem}/rotate-secret`, tokens.broker)).status).toBe(405);
    expect((await send('DELETE', oldItem, tokens.broker)).status).toBe(405);

    const em = scene.gateway.em();
    expect((await em.findOneOrFail(Tender, { id: successful.id })).policyNumber ?? null).toBeNull();
    const endpoints = await em.find(WebhookEndpoint, {});
    expect(
      endpoints.map((endpoint) => ({ url: endpoint.url, disabledAt: endpoint.disabledAt ?? null, description: endpoint.description })),
    ).toEqual([{ url: 'http://127.0.0.1:9/kept', disabledAt: null, description: made.body.description }]);
    expect((await send('DELETE', `/integration/v1/webhook-endpoints/${made.body._id}`, tokens.broker)).status).toBe(204);
  });
});

describe('the integration API at /integration/v1', () => {
  it('lets the winning insurer confirm the policy documentation, and no one else', async () => {
    const path = `/integration/v1/tenders/${successful.id}/policy-documentation`;
    expect((await send('POST', path, tokens.broker, { policy_number: 'POL-1' })).status).toBe(403);
    const confirmed = await send('POST', path, tokens.insurer, { policy_number: 'POL-1' });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.policy_documentation).toMatchObject({ status: 'CONFIRMED', policy_number: 'POL-1' });
    const get = await send('GET', path, tokens.insurer);
    expect({ status: get.status, allow: get.headers.get('allow') }).toEqual({ status: 405, allow: 'POST' });
  });

  it('lets insurer and broker clients each manage their own webhook endpoints at one path; internal users use GraphQL', async () => {
    const prefix = '/integration/v1/webhook-endpoints';
    const mine = await send('POST', prefix, tokens.insurer, { url: 'http://127.0.0.1:9/insurer', event_types: ['tender.invited'] });
    expect(mine.status).toBe(201);
    expect(mine.headers.get('location')).toBe(`${prefix}/${mine.body._id}`);
    const theirs = await send('POST', prefix, tokens.broker, { url: 'http://127.0.0.1:9/broker', event_types: ['quote.received'] });
    expect(theirs.status).toBe(201);
    expect((await send('GET', prefix, tokens.insurer)).body.map((endpoint: { _id: string }) => endpoint._id)).toEqual([mine.body._id]);
    expect((await send('GET', `${prefix}/${theirs.body._id}`, tokens.insurer)).status).toBe(404);
    expect((await send('PATCH', `${prefix}/${mine.body._id}`, tokens.insurer, { enabled: false })).body.enabled).toBe(false);
    expect((await send('POST', `${prefix}/${mine.body._id}/rotate-secret`, tokens.insurer)).body.secret).not.toBe(mine.body.secret);
    expect((await send('GET', `${prefix}/${mine.body._id}/deliveries`, tokens.insurer)).body.metadata.count).toBe('0');
    expect((await send('POST', `${prefix}/${mine.body._id}/replay`, tokens.insurer, { since: '2026-01-01T00:00:00Z' })).body).toEqual({
      requeued: 0,
    });
    const internal = await send('GET', prefix, tokens.internal);
    expect({ status: internal.status, code: internal.body.code }).toEqual({ status: 403, code: 'FORBIDDEN' });
    for (const [token, id] of [
      [tokens.insurer, mine.body._id],
      [tokens.broker, theirs.body._id],
    ]) {
      expect((await send('DELETE', `${prefix}/${id}`, token)).status).toBe(204);
    }
    const wrongMethod = await send('PUT', prefix, tokens.broker, {});
    expect({ status: wrongMethod.status, allow: wrongMethod.headers.get('allow') }).toEqual({ status: 405, allow: 'GET, HEAD, POST' });
    expect((await json(await fetch(`${scene.gateway.url}/openapi.json`))).paths).toHaveProperty([`${prefix}/{id}/replay`, 'post']);
  });
});
