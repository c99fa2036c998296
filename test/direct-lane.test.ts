import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import type { Tender } from '../src/tenders';
import { createTender } from './helpers/fixtures';
import { createClient, requestToken } from './helpers/gateway';
import { awayFromWindowEdge } from './helpers/rate-limit-window';
import { withGateway } from './helpers/scene';

/**
 * The partners' tender reads at their canonical paths take the direct lane (src/api/http/direct-lane.ts); the same
 * reads at a path only the router matches (a trailing slash) take the router. A client must not be able to tell
 * them apart, nor win anything by choosing one.
 */
const scene = withGateway({ per: 'file', world: true, dispatch: false, env: { RATE_LIMIT_PER_MINUTE: '30' } });

let tender: Tender;
let broker: string;
let insurer: string;

beforeAll(async () => {
  tender = await createTender(scene.em(), scene.world, { invited: [scene.world.insurers[0]] });
});

// Clients of their own in each test: each has a budget of 30 requests a minute (the token requests count against their address's).
beforeEach(async () => {
  const { insurers, brokers } = scene.world;
  broker = await requestToken(scene.gateway, await createClient(scene.gateway, Role.BROKER, { brokerCompanyId: brokers[0].id }));
  insurer = await requestToken(scene.gateway, await createClient(scene.gateway, Role.INSURER, { insurerId: insurers[0].id }));
});

async function get(path: string, token?: string, method = 'GET') {
  const response = await fetch(`${scene.gateway.url}${path}`, { method, headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** The headers a client may compare between two reads of the same thing (the ETag names the URL, the id the request). */
function comparable(headers: Headers): Record<string, string> {
  const drop = new Set(['date', 'etag', 'x-request-id', 'ratelimit', 'content-length', 'connection', 'keep-alive']);
  return Object.fromEntries([...headers].filter(([name]) => !drop.has(name)));
}

describe('the direct lane for tender reads', () => {
  it('answers a tender, a page and an insurer page with the same body and headers as the router does for the same read', async () => {
    for (const [canonical, token] of [
      [`/api/v1/tenders/${tender.id}`, broker],
      ['/api/v1/tenders?limit=1', broker],
      [`/public/v1/tenders/${tender.id}`, insurer],
    ] as const) {
      const viaRouter = canonical.includes('?') ? canonical.replace('?', '/?') : `${canonical}/`;
      const [lane, router] = [await get(canonical, token), await get(viaRouter, token)];
      expect(lane.status, canonical).toBe(200);
      expect(router.status, viaRouter).toBe(200);
      expect(lane.text).toBe(router.text);
      expect(comparable(lane.headers)).toEqual(comparable(router.headers));
      expect(lane.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(Number(lane.headers.get('content-length'))).toBe(Buffer.byteLength(lane.text));
      expect(lane.headers.get('etag')).toMatch(/^"[\w-]{32}"$/);
      expect(lane.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(lane.headers.get('ratelimit')).toMatch(/^"client"; r=\d+; t=\d+$/);
    }
  });

  it('answers bad input, an unknown tender and a bad token there with the same problems as anywhere else', async () => {
    const badLimit = await get('/api/v1/tenders?limit=zero', broker);
    expect(badLimit.status).toBe(400);
    expect(badLimit.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(badLimit.text)).toMatchObject({ status: 400, code: 'BAD_USER_INPUT' });

    const unknown = await get('/api/v1/tenders/00000000-0000-4000-8000-000000000000', broker);
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text)).toMatchObject({ status: 404 });

    const unsigned = await get(`/api/v1/tenders/${tender.id}`, 'not-a-token');
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers.get('www-authenticate')).toMatch(/^Bearer/);

    // A parameter that does not decode is the router's to refuse, as before the lane.
    const malformed = await get('/api/v1/tenders/%E0%A4%A', broker);
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.text)).toMatchObject({ status: 400 });

    // An insurer's tender under the brokers' API is refused by the access policy in the lane too.
    const wrongApi = await get(`/api/v1/tenders/${tender.id}`, insurer);
    expect(wrongApi.status).toBe(403);
  });

  it('answers HEAD (the router) with the headers of the GET and no body', async () => {
    const head = await get(`/api/v1/tenders/${tender.id}`, broker, 'HEAD');
    const full = await get(`/api/v1/tenders/${tender.id}`, broker);
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('content-length')).toBe(full.headers.get('content-length'));
    expect(head.headers.get('etag')).toBe(full.headers.get('etag'));
  });

  it("counts a client's reads against one budget whichever way they take, and refuses the next once it is spent", async () => {
    await awayFromWindowEdge(60_000);
    const own = broker;
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) {
      statuses.push((await get(`/api/v1/tenders/${tender.id}`, own)).status);
      statuses.push((await get(`/api/v1/tenders/${tender.id}/`, own)).status);
    }
    expect(statuses).toEqual(Array(30).fill(200));
    const lane = await get(`/api/v1/tenders/${tender.id}`, own);
    const router = await get(`/api/v1/tenders/${tender.id}/`, own);
    expect([lane.status, router.status]).toEqual([429, 429]);
    expect(lane.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(lane.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});
