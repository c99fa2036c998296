import { RawQueryFragment, type FilterQuery, type QueryOrderMap } from '@mikro-orm/core';
import { describe, expect, it } from 'vitest';
import { Role, type Viewer } from '../src/access';
import { Tender, TenderStatus, visibleTenders } from '../src/tenders';
import { findTenderRecords } from '../src/tenders/read/tender-record';
import { withPagingWorld } from './helpers/paging-world';

// Tender reads run a statement built once per shape of their filter (src/platform/db/query-templates.ts): each read
// must still return exactly the rows its own filter selects, whatever shapes and values ran before it.

const { scene } = withPagingWorld(13);

const viewer = (role: Role, binding: { insurerId?: string; brokerCompanyId?: string } = {}): Viewer => ({
  appId: `test-${role}`,
  role,
  jti: 'test',
  expiresAt: new Date(Date.now() + 60_000),
  tokenGeneration: 0,
  ...binding,
});

const ORDER: QueryOrderMap<Tender>[] = [{ createdAt: 'desc' }, { id: 'desc' }];

/** The ids MikroORM's own find returns for the filter and page: what the templated read must return. */
async function expectedIds(where: FilterQuery<Tender>, offset: number, limit: number): Promise<string[]> {
  const tenders = await scene.gateway.em().find(Tender, where, { orderBy: ORDER, offset, limit, fields: ['id'] });
  return tenders.map((tender) => tender.id);
}

async function templatedIds(where: () => FilterQuery<Tender>, offset: number, limit: number): Promise<string[]> {
  const records = await findTenderRecords(scene.gateway.em(), { where: where(), page: { orderBy: ORDER, offset, limit } });
  return records.map((record) => record.id);
}

describe('tender reads from statement templates', () => {
  it('each viewer, filter and page gets its own rows, read after reads of the same shape with other values', async () => {
    const viewers = [
      viewer(Role.INTERNAL),
      ...scene.world.brokers.map((broker) => viewer(Role.BROKER, { brokerCompanyId: broker.id })),
      ...scene.world.insurers.map((insurer) => viewer(Role.INSURER, { insurerId: insurer.id })),
    ];
    const filters: ((viewer: Viewer) => FilterQuery<Tender>)[] = [
      (viewer) => visibleTenders(viewer),
      (viewer) => ({ $and: [visibleTenders(viewer), { status: { $in: [TenderStatus.CLOSED] } }] }),
      (viewer) => ({ $and: [visibleTenders(viewer), { status: { $in: [TenderStatus.QUOTES_AVAILABLE, TenderStatus.REOPENED] } }] }),
      (viewer) => ({ $and: [visibleTenders(viewer), { lineOfBusiness: scene.world.lines.cyber.id }] }),
      (viewer) => ({ $and: [visibleTenders(viewer), { lineOfBusiness: scene.world.lines.dno.id }] }),
    ];
    let pages = 0;
    for (const [offset, limit] of [
      [0, 5],
      [3, 4],
      [0, 200],
    ])
      for (const filter of filters)
        for (const each of viewers) {
          const expected = await expectedIds(filter(each), offset, limit);
          expect(
            await templatedIds(() => filter(each), offset, limit),
            `${each.role} ${each.brokerCompanyId ?? each.insurerId ?? ''}`,
          ).toEqual(expected);
          if (expected.length > 0) pages++;
        }
    // The world has tenders for every kind of viewer: the comparisons above were not of empty pages alone.
    expect(pages).toBeGreaterThan(20);
  });

  it('one tender by id is found for a viewer who sees it and for no one else', async () => {
    const [tender] = await scene.gateway.em().find(Tender, { brokerCompany: scene.world.brokers[1].id }, { limit: 1 });
    const read = async (who: Viewer) =>
      (await findTenderRecords(scene.gateway.em(), { where: { $and: [{ id: tender.id }, visibleTenders(who)] } })).map(
        (record) => record.id,
      );
    expect(await read(viewer(Role.BROKER, { brokerCompanyId: scene.world.brokers[1].id }))).toEqual([tender.id]);
    expect(await read(viewer(Role.BROKER, { brokerCompanyId: scene.world.brokers[0].id }))).toEqual([]);
    expect(await read(viewer(Role.INTERNAL))).toEqual([tender.id]);
  });

  it('a filter with a value that is not a string or number (a date) still selects its rows', async () => {
    const all = await expectedIds({}, 0, 200);
    const [newest] = await scene.gateway.em().find(Tender, { id: all[0] });
    const since = (at: Date) => () => ({ createdAt: { $gte: at } });
    expect(await templatedIds(since(newest.createdAt), 0, 200)).toEqual(
      await expectedIds({ createdAt: { $gte: newest.createdAt } }, 0, 200),
    );
    expect(await templatedIds(since(new Date(0)), 0, 200)).toEqual(all);
  });

  it('reads of insurers, whose filter is a raw fragment, leave no fragment behind in MikroORM', async () => {
    const insurer = viewer(Role.INSURER, { insurerId: scene.world.insurers[0].id });
    await templatedIds(() => visibleTenders(insurer), 0, 5);
    const before = RawQueryFragment.checkCacheSize();
    for (let i = 0; i < 50; i++) await templatedIds(() => visibleTenders(insurer), i % 7, 5);
    expect(RawQueryFragment.checkCacheSize()).toBe(before);
  });
});
