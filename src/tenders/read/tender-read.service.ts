import type { EntityManager, FilterQuery, QueryOrderMap } from '@mikro-orm/core';
import type { Viewer } from '../../access/viewer';
import { badInput, notFound } from '../../platform/errors/domain-error';
import { Tender } from '../tender.entity';
import { findTenderRecords } from './tender-record';
import { afterPosition, cursorAfter, positionOf, type OrderKey } from './tender-cursor';
import { ALL_STATUSES } from '../tender-status';
import { countVisibleTenders, presentTender, visibleTenders } from '../tender-access';
import { countAtRevision } from '../feed/tender-feed';
import { SortDirection, TenderSortField, type TenderListArgs, type TenderPage, type TenderView } from '../tender.types';
import { PageRules } from '../../platform/validation/rules';
import { problemsOf } from '../../platform/validation/validate';

export class TenderReadService {
  constructor(
    private readonly em: EntityManager,
    private readonly viewer: Viewer,
  ) {}

  async get(id: string): Promise<TenderView> {
    const [tender] = await findTenderRecords(this.em, { where: { $and: [{ id }, visibleTenders(this.viewer)] } });
    // A tender the viewer may not see does not exist for it: 404, never 403.
    if (!tender) throw notFound(`Tender ${id} not found`);
    return presentTender(tender, this.viewer);
  }

  async list(args: TenderListArgs): Promise<TenderPage> {
    validatePaging(args);
    const filters: FilterQuery<Tender>[] = [];
    // A filter that admits every status is no filter; left in, it would steer the planner to the status index
    // and a full sort instead of walking the sort key's index.
    if (args.status && !ALL_STATUSES.every((status) => args.status!.includes(status))) filters.push({ status: { $in: args.status } });
    if (args.lineOfBusinessId !== undefined && args.lineOfBusinessId !== null) filters.push({ lineOfBusiness: args.lineOfBusinessId });
    if (args.updatedSince) filters.push({ updatedAt: { $gte: args.updatedSince } });
    // The count has a statement of its own, without the joins of the page or the cursor. The visibility filter is
    // built per statement: a raw fragment in it is consumed by the query it is used in.
    const keys = orderKeys(args);
    const after = args.after ? [afterPosition(this.em, keys, positionOf(args.after, keys))] : [];
    // One tender beyond the page tells whether there is a next one.
    const [tenders, count] = await Promise.all([
      findTenderRecords(this.em, {
        where: { $and: [visibleTenders(this.viewer), ...filters, ...after] },
        page: { orderBy: keys.map((key) => ({ [key.field]: key.direction }) as QueryOrderMap<Tender>), offset: args.skip, limit: args.limit + 1 },
      }),
      // The count grows with the data (SQLite walks an index): one per revision of what the viewer sees.
      countAtRevision(this.em, this.viewer, JSON.stringify([args.status ?? null, args.lineOfBusinessId ?? null, args.updatedSince?.getTime() ?? null]), () =>
        countVisibleTenders(this.em, this.viewer, filters),
      ),
    ]);
    const page = tenders.slice(0, args.limit);
    return {
      count,
      skip: args.skip,
      limit: args.limit,
      items: page.map((tender) => presentTender(tender, this.viewer)),
      next: tenders.length > args.limit ? cursorAfter(page[page.length - 1], keys) : null,
    };
  }
}

function validatePaging(args: TenderListArgs): void {
  const problems = problemsOf(PageRules, { skip: args.skip, limit: args.limit });
  const fields = (args.sort ?? []).map((key) => key.field);
  if (new Set(fields).size !== fields.length) problems.push({ parameter: 'sort', message: 'names a field twice' });
  if (args.after && args.skip > 0) problems.push({ parameter: 'after', message: 'continues from a cursor: not with skip' });
  if (problems.length > 0) throw badInput(problems.map((p) => `${p.parameter} ${p.message}`).join('; '), problems);
}

/** Deterministic in every case: the requested keys (default createdAt descending), then id. */
function orderKeys(args: TenderListArgs): OrderKey[] {
  const keys: OrderKey[] = args.sort?.length ? args.sort.map(({ field, direction }) => ({ field, direction })) : [{ field: TenderSortField.CREATED_AT, direction: SortDirection.DESC }];
  return [...keys, { field: 'id', direction: keys[keys.length - 1].direction }];
}
