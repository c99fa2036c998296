import type { EntityManager, FilterQuery, QueryOrderMap } from '@mikro-orm/core';
import type { Viewer } from '../../access';
import { badInput, notFound } from '../../platform/errors/domain-error';
import { Tender } from '../tender.entity';
import { findTenderRecords } from './tender-record';
import type { TenderRecord } from '../shape/tender-fields';
import { afterPosition, cursorAfter, positionOf, positionOfRecord, signatureOf, type OrderKey, type Position } from './tender-cursor';
import { keepPositions, nearestKept } from './kept-positions';
import { ALL_STATUSES } from '../tender-status';
import { countVisibleTenders, listedTenders, presentTender, visibleTenders } from './tender-access';
import { countAtRevision, currentRevisionOf, feedRevisionOf } from '../feed/tender-feed';
import { SortDirection, TenderSortField, type TenderListArgs, type TenderPage, type TenderView } from './tender.types';
import { PageRules } from '../../platform/validation/rules';
import { problemsOf, repeatedKeys } from '../../platform/validation/validate';

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
    // The count has a statement of its own, without the joins of the page or the cursor. The visibility filter and
    // a position are built per statement: a raw fragment in them is consumed by the query it is used in.
    const keys = orderKeys(args);
    const visible = await listedTenders(this.em, this.viewer);
    const filterKey = JSON.stringify([args.status ?? null, args.lineOfBusinessId ?? null, args.updatedSince?.getTime() ?? null]);
    const list: ListQuery = {
      where: (after) => ({ $and: [visible(), ...filters, ...(after ? [afterPosition(this.em, keys, after)] : [])] }),
      orderBy: keys.map((key) => ({ [key.field]: key.direction })),
    };
    // One tender beyond the page tells whether there is a next one.
    const [tenders, count] = await Promise.all([
      args.after
        ? this.read(list, positionOf(args.after, keys), 0, args.limit + 1)
        : args.skip > 0
          ? this.readBySkip(list, `${filterKey}|${signatureOf(keys)}`, keys, args)
          : this.read(list, undefined, 0, args.limit + 1),
      // The count grows with the data (SQLite walks an index): one per revision of what the viewer sees.
      countAtRevision(this.em, this.viewer, filterKey, () => countVisibleTenders(this.em, this.viewer, filters)),
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

  private read(list: ListQuery, after: Position | undefined, offset: number, limit: number): Promise<TenderRecord[]> {
    return findTenderRecords(this.em, { where: list.where(after), page: { orderBy: list.orderBy, offset, limit } });
  }

  /**
   * The page at `skip` (and the tender after it), from the nearest position kept for the list at the viewer's
   * revision. Positions are kept, and a page read from one is answered, only when the revision stood from before
   * the read to after it: the rows were then those of that revision, whatever committed around the request.
   */
  private async readBySkip(list: ListQuery, name: string, keys: readonly OrderKey[], args: TenderListArgs): Promise<TenderRecord[]> {
    const revision = await feedRevisionOf(this.em, this.viewer);
    const metadata = this.em.getMetadata();
    const listKey = `${revision}|${name}`;
    const from = nearestKept(metadata, listKey, args.skip) ?? { index: 0, position: undefined };
    // The tender before the page too, when the read starts earlier: where a later request for this skip can start.
    const lead = args.skip > from.index ? 1 : 0;
    const rows = await this.read(list, from.position, args.skip - from.index - lead, args.limit + 1 + lead);
    if ((await currentRevisionOf(this.em, this.viewer)) !== revision) {
      return from.position ? this.read(list, undefined, args.skip, args.limit + 1) : rows.slice(lead);
    }
    const page = rows.slice(lead, lead + args.limit);
    keepPositions(metadata, listKey, [
      ...(lead && rows.length > 0 ? [{ index: args.skip, position: positionOfRecord(rows[0], keys) }] : []),
      ...(page.length > 0 ? [{ index: args.skip + page.length, position: positionOfRecord(page[page.length - 1], keys) }] : []),
    ]);
    return rows.slice(lead);
  }
}

/** A list's filters (with a position to start after) and its order. */
interface ListQuery {
  where(after?: Position): FilterQuery<Tender>;
  orderBy: QueryOrderMap<Tender>[];
}

function validatePaging(args: TenderListArgs): void {
  const problems = problemsOf(PageRules, { skip: args.skip, limit: args.limit });
  const fields = (args.sort ?? []).map((key) => key.field);
  if (repeatedKeys(fields).size > 0) problems.push({ parameter: 'sort', message: 'names a field twice' });
  if (args.after && args.skip > 0) problems.push({ parameter: 'after', message: 'continues from a cursor: not with skip' });
  if (problems.length > 0) throw badInput(problems.map((p) => `${p.parameter} ${p.message}`).join('; '), problems);
}

/** Deterministic in every case: the requested keys (default createdAt descending), then id. */
function orderKeys(args: TenderListArgs): OrderKey[] {
  const keys: OrderKey[] = args.sort?.length
    ? args.sort.map(({ field, direction }) => ({ field, direction }))
    : [{ field: TenderSortField.CREATED_AT, direction: SortDirection.DESC }];
  return [...keys, { field: 'id', direction: keys[keys.length - 1].direction }];
}
