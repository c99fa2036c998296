import { describe, expect, it } from 'vitest';
import { createTender } from './helpers/fixtures';
import { getJson, graphql } from './helpers/gateway';
import { withPagingWorld } from './helpers/paging-world';

// Pages by `skip` start from positions the gateway keeps per list and revision (src/tenders/read/kept-positions.ts):
// whatever order pages are asked for, and whatever changes between, each must be the slice of the list as it is.

const { scene, tokens } = withPagingWorld(13);

const idsOf = (body: { payload: { _id: string }[] }) => body.payload.map((tender) => tender._id);

/** The whole list in one page: what every page by skip must be a slice of. */
async function wholeList(path: string, query: string, token: string): Promise<string[]> {
  const { status, body } = await getJson(scene.gateway, `${path}?${query}${query ? '&' : ''}limit=200`, token);
  expect(status).toBe(200);
  return idsOf(body);
}

async function pageAt(
  path: string,
  query: string,
  token: string,
  skip: number,
  limit: number,
): Promise<{ ids: string[]; next: string | null; count: string }> {
  const { status, body } = await getJson(scene.gateway, `${path}?${query}${query ? '&' : ''}skip=${skip}&limit=${limit}`, token);
  expect(status, JSON.stringify(body)).toBe(200);
  return { ids: idsOf(body), next: body.metadata.next, count: body.metadata.count };
}

describe('paging by skip from kept positions', () => {
  const cases: [string, string, () => string][] = [
    ['/api/v1/tenders', '', () => tokens.broker],
    ['/api/v1/tenders', 'sort=status,-created_at', () => tokens.broker],
    ['/api/v1/tenders', 'sort=product,created_at', () => tokens.broker],
    ['/api/v1/tenders/open', 'sort=-updated_at', () => tokens.broker],
    ['/public/v1/tenders', '', () => tokens.insurer],
    ['/api/v1/tenders', 'sort=created_at', () => tokens.internal],
  ];

  it.each(cases)('%s?%s: pages asked for in any order, and asked again, are slices of the whole list', async (path, query, token) => {
    const whole = await wholeList(path, query, token());
    expect(whole.length).toBeGreaterThan(4);
    // Forward, a deep page first, backwards, and every one again: from no position, the nearest one, an exact one.
    const skips = [
      0,
      2,
      4,
      6,
      8,
      10,
      12,
      14,
      whole.length - 1,
      5,
      3,
      1,
      7,
      0,
      2,
      4,
      6,
      8,
      10,
      12,
      14,
      whole.length - 1,
      5,
      3,
      1,
      7,
      whole.length + 3,
    ];
    for (const skip of skips) {
      const page = await pageAt(path, query, token(), skip, 2);
      expect(page.ids, `skip ${skip}`).toEqual(whole.slice(skip, skip + 2));
      expect(page.count).toBe(String(whole.length));
      expect(page.next === null, `next at skip ${skip}`).toBe(skip + 2 >= whole.length);
    }
  });

  it('the same skip in lists of other filters, orders, limits or viewers is each its own list', async () => {
    const lists: [string, string, string][] = [
      ['/api/v1/tenders', '', tokens.broker],
      ['/api/v1/tenders', 'sort=-product', tokens.broker],
      ['/api/v1/tenders/closed', '', tokens.broker],
      ['/api/v1/tenders', '', tokens.internal],
      ['/public/v1/tenders', '', tokens.insurer],
      ['/public/v1/tenders/open', '', tokens.insurer],
    ];
    const wholes = await Promise.all(lists.map(([path, query, token]) => wholeList(path, query, token)));
    for (let round = 0; round < 2; round++) {
      for (const [i, [path, query, token]] of lists.entries()) {
        for (const [skip, limit] of [
          [1, 3],
          [4, 1],
          [2, 2],
        ]) {
          expect((await pageAt(path, query, token, skip, limit)).ids, `${path}?${query} skip ${skip} limit ${limit}`).toEqual(
            wholes[i].slice(skip, skip + limit),
          );
        }
      }
    }
  });

  it('after a change the list can see, pages by skip follow the new list, not the positions kept before it', async () => {
    const before = await wholeList('/api/v1/tenders', '', tokens.broker);
    for (let i = 0; i < 2; i++) expect((await pageAt('/api/v1/tenders', '', tokens.broker, 6, 3)).ids).toEqual(before.slice(6, 9));
    // The newest tender comes first in the default order, so every later one moves down by one.
    const created = await createTender(scene.gateway.em(), scene.world, { createdAt: new Date() });
    const after = await wholeList('/api/v1/tenders', '', tokens.broker);
    expect(after).toEqual([created.id, ...before]);
    expect((await pageAt('/api/v1/tenders', '', tokens.broker, 6, 3)).ids).toEqual(before.slice(5, 8));
    expect((await pageAt('/api/v1/tenders', '', tokens.broker, 9, 3)).ids).toEqual(before.slice(8, 11));
    // Closing a tender moves it in a list sorted by status.
    const byStatus = await wholeList('/api/v1/tenders', 'sort=status', tokens.broker);
    for (let i = 0; i < 2; i++)
      expect((await pageAt('/api/v1/tenders', 'sort=status', tokens.broker, 3, 4)).ids).toEqual(byStatus.slice(3, 7));
    const closing = await graphql(
      scene.gateway,
      tokens.broker,
      'mutation($id: ID!) { closeTender(tenderId: $id, reason: "No longer needed") { id status } }',
      { id: byStatus.at(-1) },
    );
    expect(closing.body.errors, JSON.stringify(closing.body.errors)).toBeUndefined();
    const reordered = await wholeList('/api/v1/tenders', 'sort=status', tokens.broker);
    expect(reordered).not.toEqual(byStatus);
    expect((await pageAt('/api/v1/tenders', 'sort=status', tokens.broker, 3, 4)).ids).toEqual(reordered.slice(3, 7));
  });

  it('GraphQL pages by skip are the same slices', async () => {
    const whole = await wholeList('/api/v1/tenders', '', tokens.internal);
    for (const skip of [5, 9, 5, 9, 2]) {
      const { body } = await graphql(
        scene.gateway,
        tokens.internal,
        'query($skip: Int!) { tenders(skip: $skip, limit: 3) { items { id } } }',
        {
          skip,
        },
      );
      expect(body.errors).toBeUndefined();
      expect(body.data.tenders.items.map((tender: { id: string }) => tender.id)).toEqual(whole.slice(skip, skip + 3));
    }
  });
});
