import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { TenderStatus } from '../src/tenders';
import { createTender } from './helpers/fixtures';
import { getJson, json } from './helpers/gateway';
import { withGateway } from './helpers/scene';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Per status: how many tenders of broker 0 the fixture creates (all invite insurer 0). */
const PER_STATUS: Record<TenderStatus, number> = {
  QUOTES_AVAILABLE: 4,
  IN_NEGOTIATION: 3,
  IN_COVERNOTE: 2,
  REOPENED: 1,
  SUCCESSFUL: 2,
  CLOSED: 3,
};
const TOTAL = Object.values(PER_STATUS).reduce((a, b) => a + b, 0);
const OPEN = PER_STATUS.QUOTES_AVAILABLE + PER_STATUS.IN_NEGOTIATION + PER_STATUS.IN_COVERNOTE + PER_STATUS.REOPENED;

let broker: string;
let insurer: string;
let internal: string;

const scene = withGateway({ per: 'file', world: true });

beforeAll(async () => {
  const em = scene.gateway.em();
  let product = 0;
  for (const [status, count] of Object.entries(PER_STATUS) as [TenderStatus, number][]) {
    for (let i = 0; i < count; i++) {
      await createTender(em, scene.world, {
        status,
        invited: [scene.world.insurers[0]],
        awardedInsurer: status === TenderStatus.SUCCESSFUL ? scene.world.insurers[0] : undefined,
        product: `Product ${String.fromCharCode(65 + (product++ % 5))}`,
        line: i % 2 === 0 ? scene.world.lines.cyber : scene.world.lines.dno,
      });
    }
  }
  broker = await scene.token(Role.BROKER);
  insurer = await scene.token(Role.INSURER);
  internal = await scene.token(Role.INTERNAL);
});

describe('REST tender lists', () => {
  const paths: [string, () => string, number, TenderStatus[]][] = [
    ['/public/v1/tenders', () => insurer, TOTAL, Object.values(TenderStatus)],
    ['/public/v1/tenders/open', () => insurer, OPEN, ['QUOTES_AVAILABLE', 'IN_NEGOTIATION', 'IN_COVERNOTE', 'REOPENED'] as TenderStatus[]],
    ['/public/v1/tenders/successful', () => insurer, PER_STATUS.SUCCESSFUL, [TenderStatus.SUCCESSFUL]],
    ['/public/v1/tenders/closed', () => insurer, PER_STATUS.CLOSED, [TenderStatus.CLOSED]],
    ['/api/v1/tenders', () => broker, TOTAL, Object.values(TenderStatus)],
    [
      '/public/v1/tenders/open (broker token)',
      () => broker,
      OPEN,
      ['QUOTES_AVAILABLE', 'IN_NEGOTIATION', 'IN_COVERNOTE', 'REOPENED'] as TenderStatus[],
    ],
    ['/api/v1/tenders/open', () => broker, OPEN, ['QUOTES_AVAILABLE', 'IN_NEGOTIATION', 'IN_COVERNOTE', 'REOPENED'] as TenderStatus[]],
    ['/api/v1/tenders/successful', () => broker, PER_STATUS.SUCCESSFUL, [TenderStatus.SUCCESSFUL]],
    ['/api/v1/tenders/closed', () => broker, PER_STATUS.CLOSED, [TenderStatus.CLOSED]],
  ];

  it.each(paths)(
    '%s answers the envelope with string count/skip/limit, the total and only its statuses',
    async (label, token, total, statuses) => {
      const path = label.split(' ')[0];
      const { status, body, headers } = await getJson(scene.gateway, path, token());
      expect(status).toBe(200);
      expect(headers.get('content-type')).toMatch(/^application\/json/);
      expect(body.metadata).toEqual({ count: String(total), skip: '0', limit: '50', sort: {}, next: null });
      expect(body.payload).toHaveLength(total);
      for (const tender of body.payload) expect(statuses).toContain(tender.status);
    },
  );

  it('shows every field of spec 2.1 with REST names, in its order, and millisecond UTC timestamps', async () => {
    const { body } = await getJson(scene.gateway, '/api/v1/tenders?limit=1', broker);
    const [tender] = body.payload;
    const spec = [
      '_id',
      'changes_metadata',
      'created_at',
      'updated_at',
      'product',
      'status',
      'tax_rate',
      'line_of_business',
      'customer',
      'broker_company',
      'person_in_charge',
    ];
    // Additions (documented in the OpenAPI document, which every answer is checked against) follow the spec's fields.
    expect(Object.keys(tender).slice(0, spec.length)).toEqual(spec);
    expect(Object.keys(tender)).toContain('policy_documentation');
    expect(tender.created_at).toMatch(ISO_MS);
    expect(tender.updated_at).toMatch(ISO_MS);
    expect(tender.changes_metadata.status_changed_to_quotes_available).toMatch(ISO_MS);
    expect(tender.tax_rate).toBe(0.19);
    expect(Object.keys(tender.line_of_business).sort()).toEqual(['_id', 'name']);
    expect(Object.keys(tender.customer).sort()).toEqual(['_id', 'address', 'company_id', 'name']);
    expect(Object.keys(tender.customer.address).sort()).toEqual(['city', 'country', 'house_number', 'street', 'zip']);
    expect(Object.keys(tender.broker_company).sort()).toEqual(['_id', 'address', 'company_id', 'email', 'name']);
    expect(tender.broker_company.address.house_number).toBe('');
    expect(Object.keys(tender.person_in_charge).sort()).toEqual(['_id', 'account_id', 'email', 'first_name', 'last_name', 'salutation']);
  });

  it('pages with skip and limit, and count stays the total', async () => {
    const all = (await getJson(scene.gateway, '/api/v1/tenders?limit=200', broker)).body.payload.map((t: { _id: string }) => t._id);
    const page = await getJson(scene.gateway, '/api/v1/tenders?skip=5&limit=4', broker);
    expect(page.body.metadata).toMatchObject({ count: String(TOTAL), skip: '5', limit: '4' });
    expect(page.body.payload.map((t: { _id: string }) => t._id)).toEqual(all.slice(5, 9));
    const beyond = await getJson(scene.gateway, `/api/v1/tenders?skip=${TOTAL + 10}`, broker);
    expect(beyond.body.payload).toEqual([]);
    expect(beyond.body.metadata.count).toBe(String(TOTAL));
  });

  it('orders by created_at descending without sort, then by _id', async () => {
    const { body } = await getJson(scene.gateway, '/api/v1/tenders', broker);
    const created = body.payload.map((t: { created_at: string }) => t.created_at);
    expect(created).toEqual([...created].sort().reverse());
  });

  it('sorts by several keys and echoes them in metadata.sort', async () => {
    const { body } = await getJson(scene.gateway, '/api/v1/tenders?sort=product,-created_at', broker);
    expect(body.metadata.sort).toEqual({ product: 1, created_at: -1 });
    const keys = body.payload.map((t: { product: string; created_at: string }) => [t.product, t.created_at]);
    const expected = [...keys].sort((a, b) => (a[0] === b[0] ? b[1].localeCompare(a[1]) : a[0].localeCompare(b[0])));
    expect(keys).toEqual(expected);
    const byStatus = await getJson(scene.gateway, '/api/v1/tenders?sort=-status', broker);
    const statuses = byStatus.body.payload.map((t: { status: string }) => t.status);
    expect(statuses).toEqual([...statuses].sort().reverse());
  });

  it('filters by status within the path, line_of_business and updated_since', async () => {
    const two = await getJson(scene.gateway, '/api/v1/tenders?status=CLOSED,REOPENED', broker);
    expect(two.body.metadata.count).toBe(String(PER_STATUS.CLOSED + PER_STATUS.REOPENED));
    const open = await getJson(scene.gateway, '/public/v1/tenders/open?status=REOPENED', insurer);
    expect(open.body.payload.map((t: { status: string }) => t.status)).toEqual(['REOPENED']);
    const dno = await getJson(scene.gateway, `/api/v1/tenders?line_of_business=${scene.world.lines.dno.id}`, broker);
    expect(dno.body.payload.length).toBeGreaterThan(0);
    for (const t of dno.body.payload) expect(t.line_of_business).toEqual({ _id: scene.world.lines.dno.id, name: 'D&O' });
    const all = (await getJson(scene.gateway, '/api/v1/tenders?limit=200&sort=updated_at', broker)).body.payload;
    const since = all[10].updated_at;
    const recent = await getJson(scene.gateway, `/api/v1/tenders?updated_since=${encodeURIComponent(since)}&limit=200`, broker);
    expect(recent.body.metadata.count).toBe(String(all.length - 10));
    for (const t of recent.body.payload) expect(Date.parse(t.updated_at)).toBeGreaterThanOrEqual(Date.parse(since));
  });

  it('returns one tender by id, with the same representation as in the list', async () => {
    const [first] = (await getJson(scene.gateway, '/api/v1/tenders?limit=1', broker)).body.payload;
    const one = await getJson(scene.gateway, `/api/v1/tenders/${first._id}`, broker);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(first);
    const missing = await getJson(scene.gateway, '/api/v1/tenders/no-such-tender', broker);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('NOT_FOUND');
  });

  const badRequests: [string, string][] = [
    ['negative skip', 'skip=-1'],
    ['fractional skip', 'skip=1.5'],
    ['limit 0', 'limit=0'],
    ['limit 10 000', 'limit=10000'],
    ['limit 201', 'limit=201'],
    ['non-numeric limit', 'limit=ten'],
    ['unknown sort field', 'sort=customer'],
    ['sort field given twice', 'sort=created_at,-created_at'],
    ['empty sort', 'sort='],
    ['unknown parameter', 'page=2'],
    ['repeated parameter', 'limit=1&limit=2'],
    ['bad date', 'updated_since=yesterday'],
    ['impossible date', 'updated_since=2026-02-30T00:00:00Z'],
    ['date without offset', 'updated_since=2026-01-01T00:00:00'],
    ['date beyond year 9999 in UTC', 'updated_since=9999-12-31T23:59:59-23:59'],
    ['date before year 1 in UTC', 'updated_since=0000-01-01T00:00:00%2B01:00'],
    ['unknown status', 'status=PENDING'],
    ['lower-case status', 'status=closed'],
    ['bad line_of_business', 'line_of_business=%27%20OR%201%3D1'],
  ];

  it.each(badRequests)('answers %s with a 400 problem naming the parameter', async (_label, query) => {
    const { status, body, headers } = await getJson(scene.gateway, `/api/v1/tenders?${query}`, broker);
    expect(status).toBe(400);
    expect(headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(body).toMatchObject({ status: 400, code: 'BAD_USER_INPUT', title: 'Bad Request' });
    expect(body.errors.length).toBeGreaterThan(0);
    expect(body.errors[0].parameter).toBe(query.split('=')[0]);
  });

  it("refuses a status outside the path's own set", async () => {
    const { status, body } = await getJson(scene.gateway, '/api/v1/tenders/closed?status=REOPENED', broker);
    expect(status).toBe(400);
    expect(body.errors[0]).toMatchObject({ parameter: 'status' });
  });

  it('refuses query parameters on a single tender', async () => {
    const [first] = (await getJson(scene.gateway, '/api/v1/tenders?limit=1', broker)).body.payload;
    const { status } = await getJson(scene.gateway, `/api/v1/tenders/${first._id}?limit=1`, broker);
    expect(status).toBe(400);
  });

  it('answers other methods with 405 and Allow, unknown paths with a problem 404', async () => {
    const post = await fetch(`${scene.gateway.url}/api/v1/tenders`, { method: 'POST', headers: { authorization: `Bearer ${broker}` } });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect((await json(post)).code).toBe('METHOD_NOT_ALLOWED');
    const unknown = await getJson(scene.gateway, '/api/v2/tenders', broker);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('lets an internal token read both APIs in full', async () => {
    expect((await getJson(scene.gateway, '/public/v1/tenders', internal)).body.metadata.count).toBe(String(TOTAL));
    expect((await getJson(scene.gateway, '/api/v1/tenders', internal)).body.metadata.count).toBe(String(TOTAL));
  });
});
