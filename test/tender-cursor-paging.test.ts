import { describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { createTender } from './helpers/fixtures';
import { getJson, graphql, tokenFor } from './helpers/gateway';
import { PAGING_STATUSES, withPagingWorld } from './helpers/paging-world';

const { scene, tokens } = withPagingWorld(11);

/** Every page of a list, following metadata.next from the first page. */
async function walk(path: string, token: string, query: string): Promise<{ ids: string[]; pages: any[] }> {
  const pages: any[] = [];
  let after: string | null = null;
  do {
    const separator = query ? '&' : '';
    const { status, body } = await getJson(scene.gateway, `${path}?${query}${after ? `${separator}after=${after}` : ''}`, token);
    expect(status, JSON.stringify(body)).toBe(200);
    pages.push(body);
    after = body.metadata.next;
  } while (after && pages.length < 50);
  return { ids: pages.flatMap((page) => page.payload.map((tender: { _id: string }) => tender._id)), pages };
}

describe('cursor paging of the REST lists (after, metadata.next)', () => {
  const cases: [string, string, () => string][] = [
    ['/api/v1/tenders', 'limit=3', () => tokens.broker],
    ['/api/v1/tenders', 'limit=2&sort=status,-created_at', () => tokens.broker],
    ['/api/v1/tenders', 'limit=4&sort=product,created_at', () => tokens.broker],
    ['/api/v1/tenders/open', 'limit=2&sort=-updated_at', () => tokens.broker],
    ['/public/v1/tenders', 'limit=2', () => tokens.insurer],
    ['/public/v1/tenders/open', 'limit=1&sort=-product', () => tokens.insurer],
    ['/api/v1/tenders', 'limit=5&sort=created_at', () => tokens.internal],
  ];

  it.each(cases)(
    '%s?%s walked by its cursors gives every tender once, in the order one big page gives them',
    async (path, query, token) => {
      const whole = await getJson(scene.gateway, `${path}?${query.replace(/limit=\d+/, 'limit=200')}`, token());
      expect(whole.body.metadata.next).toBeNull();
      const { ids, pages } = await walk(path, token(), query);
      expect(ids).toEqual(whole.body.payload.map((tender: { _id: string }) => tender._id));
      expect(ids.length).toBeGreaterThan(2);
      // Every page reports the total, and only the last has no next.
      for (const page of pages) expect(page.metadata.count).toBe(String(ids.length));
      expect(pages.at(-1).metadata.next).toBeNull();
      expect(pages.slice(0, -1).every((page) => typeof page.metadata.next === 'string')).toBe(true);
    },
  );

  it('a page that holds the rest of the list has no next, and a full last page is followed by none', async () => {
    const { body } = await getJson(scene.gateway, '/api/v1/tenders?limit=11', tokens.broker);
    expect(body.payload).toHaveLength(11);
    expect(body.metadata.next).toBeNull();
    const shorter = await getJson(scene.gateway, '/api/v1/tenders?limit=10', tokens.broker);
    const last = await getJson(scene.gateway, `/api/v1/tenders?limit=10&after=${shorter.body.metadata.next}`, tokens.broker);
    expect(last.body.payload).toHaveLength(1);
    expect(last.body.metadata).toMatchObject({ count: '11', skip: '0', limit: '10', next: null });
  });

  it('a cursor continues after a page reached by skip', async () => {
    const skipped = await getJson(scene.gateway, '/api/v1/tenders?limit=3&skip=3', tokens.broker);
    const next = await getJson(scene.gateway, `/api/v1/tenders?limit=3&after=${skipped.body.metadata.next}`, tokens.broker);
    const bySkip = await getJson(scene.gateway, '/api/v1/tenders?limit=3&skip=6', tokens.broker);
    expect(next.body.payload.map((t: { _id: string }) => t._id)).toEqual(bySkip.body.payload.map((t: { _id: string }) => t._id));
  });

  it('refuses after with skip, a cursor of another sort and a forged or garbled cursor with a 400 naming after', async () => {
    const first = await getJson(scene.gateway, '/api/v1/tenders?limit=2', tokens.broker);
    const cursor = first.body.metadata.next as string;
    const forged = Buffer.from(JSON.stringify([1, 'createdAt:desc,id:desc', 'not a time', 'x'])).toString('base64url');
    for (const query of [
      `after=${cursor}&skip=2`,
      `after=${cursor}&sort=product`,
      `after=${forged}`,
      'after=%7B%7D',
      'after=bm90LWpzb24',
      `after=${'a'.repeat(2000)}`,
    ]) {
      const { status, body, headers } = await getJson(scene.gateway, `/api/v1/tenders?${query}`, tokens.broker);
      expect(status, query).toBe(400);
      expect(headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(body.errors.map((error: { parameter: string }) => error.parameter)).toEqual(['after']);
    }
  });

  it("a broker's cursor never reaches another broker's tenders", async () => {
    const { ids } = await walk('/api/v1/tenders', tokens.broker, 'limit=4');
    const others = await getJson(
      scene.gateway,
      '/api/v1/tenders?limit=200',
      await tokenFor(scene.gateway, Role.BROKER, { brokerCompanyId: scene.world.brokers[1].id }),
    );
    expect(others.body.payload).toHaveLength(3);
    for (const tender of others.body.payload) expect(ids).not.toContain(tender._id);
  });

  it("in a sort of mixed directions too, a broker's cursor never reaches another broker's tenders", async () => {
    // Another broker's tender that ties on status with broker 0's and was created before all of them: after any
    // position, it would be next but for the visibility filter.
    const older = await createTender(scene.gateway.em(), scene.world, {
      broker: 1,
      status: PAGING_STATUSES[0],
      createdAt: new Date('2025-01-01T00:00:00.000Z'),
    });
    const whole = await getJson(scene.gateway, '/api/v1/tenders?limit=200&sort=status,-created_at', tokens.broker);
    const { ids } = await walk('/api/v1/tenders', tokens.broker, 'limit=2&sort=status,-created_at');
    expect(ids).not.toContain(older.id);
    expect(ids).toEqual(whole.body.payload.map((tender: { _id: string }) => tender._id));
  });
});

describe('cursor paging in GraphQL', () => {
  it('tenders(after:) continues from next and ends with next null', async () => {
    const query = 'query($after: String) { tenders(limit: 4, after: $after) { count next items { id } } }';
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const { body } = await graphql(scene.gateway, tokens.broker, query, { after });
      expect(body.errors).toBeUndefined();
      expect(body.data.tenders.count).toBe(11);
      seen.push(...body.data.tenders.items.map((item: { id: string }) => item.id));
      after = body.data.tenders.next;
    } while (after);
    expect(new Set(seen).size).toBe(11);
  });

  it('refuses a garbled cursor with BAD_USER_INPUT', async () => {
    const { body } = await graphql(scene.gateway, tokens.broker, '{ tenders(after: "garbled") { count } }');
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});
