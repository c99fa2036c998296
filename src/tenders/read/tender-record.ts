import {
  raw,
  type EntityManager,
  type EntityMetadata,
  type FilterQuery,
  type MetadataStorage,
  type QueryOrderMap,
  type RawQueryFragment,
} from '@mikro-orm/core';
import type { QBFilterQuery, EntityManager as SqlEntityManager } from '@mikro-orm/knex';
import { Tender } from '../tender.entity';
import { TenderInvitation } from '../tender-invitation.entity';
import { dateOfColumn } from '../../platform/db/column-values';
import { QueryTemplates } from '../../platform/db/query-templates';
import { TENDER_FIELD_LIST, type Shape, type TenderRecord } from '../shape/tender-fields';

interface TenderRecordQuery {
  where: FilterQuery<Tender>;
  page?: { orderBy: QueryOrderMap<Tender>[]; offset: number; limit: number };
}

type Row = Record<string, unknown>;

/** A column's value read back, or null when the row has none. */
const columnValue = <V>(column: unknown, read: (column: unknown) => V): V | null =>
  column === null || column === undefined ? null : read(column);

/** Where each value is in a result row, and how it reads back into the record. */
interface ReadModel {
  columns: RawQueryFragment;
  /** The statements of this model, per shape of their filter. */
  templates: QueryTemplates;
  joins: readonly { property: string; alias: string }[];
  read(row: Row): TenderRecord;
}

type Reader = (row: Row, into: Record<string, unknown>) => void;

const readModels = new WeakMap<MetadataStorage, ReadModel>();

/**
 * Every column the representation needs (tender-fields.ts), from the entity metadata, each under a unique name in
 * the result row, and a reader per value: built once, so no request resolves the names against the metadata again
 * (the query builder would, for each of the 37 columns, on every request).
 */
function readModelOf(metadata: MetadataStorage): ReadModel {
  let model = readModels.get(metadata);
  if (model) return model;
  const columns: string[] = [];
  const readers: Reader[] = [];
  const joins: { property: string; alias: string }[] = [];
  const tender = metadata.get(Tender.name);
  const select = (alias: string, meta: EntityMetadata, property: string): string => {
    const key = `${alias}_${property}`;
    columns.push(`${alias}.${meta.properties[property].fieldNames[0]} as "${key}"`);
    return key;
  };
  for (const field of TENDER_FIELD_LIST) {
    if (field.source === 'column') {
      const key = select('t', tender, field.name);
      const read = field.kind.read;
      readers.push((row, into) => (into[field.name] = columnValue(row[key], read)));
    } else if (field.source === 'joined') {
      const alias = `j${joins.length}`;
      joins.push({ property: field.name, alias });
      const readShape = shapeReader(alias, metadata.get(tender.properties[field.name].type), field.shape, select);
      readers.push((row, into) => (into[field.name] = readShape(row)));
    }
  }
  const awardedInsurer = select('t', tender, 'awardedInsurer');
  const policyNumber = select('t', tender, 'policyNumber');
  const policyConfirmedAt = select('t', tender, 'policyConfirmedAt');
  const policyDocumentId = select('t', tender, 'policyDocumentId');
  const policyPeriodStart = select('t', tender, 'policyPeriodStart');
  const policyPeriodEnd = select('t', tender, 'policyPeriodEnd');
  const renewalType = select('t', tender, 'renewalType');
  const noticePeriodMonths = select('t', tender, 'noticePeriodMonths');
  const noticeDeadline = select('t', tender, 'noticeDeadline');
  readers.push((row, into) => {
    into.renewalType = row[renewalType] ?? null;
    into.noticePeriodMonths = row[noticePeriodMonths] == null ? null : Number(row[noticePeriodMonths]);
    into.noticeDeadline = columnValue(row[noticeDeadline], dateOfColumn);
    into.awardedInsurerId = row[awardedInsurer] ?? null;
    into.policyNumber = row[policyNumber] ?? null;
    into.policyDocumentId = row[policyDocumentId] ?? null;
    into.policyPeriodStart = row[policyPeriodStart] ?? null;
    into.policyPeriodEnd = row[policyPeriodEnd] ?? null;
    into.policyConfirmedAt = columnValue(row[policyConfirmedAt], dateOfColumn);
  });
  model = {
    columns: raw(columns.join(', ')),
    templates: new QueryTemplates(),
    joins,
    read(row) {
      const record: Record<string, unknown> = {};
      for (const read of readers) read(row, record);
      return record as unknown as TenderRecord;
    },
  };
  readModels.set(metadata, model);
  return model;
}

/** A joined entity's shown fields, an embedded object (an address) by its flattened parts. */
function shapeReader(
  alias: string,
  meta: EntityMetadata,
  shape: Shape<unknown>,
  select: (alias: string, meta: EntityMetadata, property: string) => string,
): (row: Row) => unknown {
  const parts: { name: string; read: (row: Row) => unknown }[] = [];
  for (const [name, nested] of Object.entries(shape.fields)) {
    if ('fields' in nested.kind) {
      const embedded = Object.values(meta.properties).filter((part) => part.embedded?.[0] === name);
      const keys = embedded.map((part) => ({ key: select(alias, meta, part.name), part: part.embedded![1] }));
      parts.push({
        name,
        read: (row) => {
          const value: Record<string, unknown> = {};
          for (const { key, part } of keys) value[part] = row[key];
          return value;
        },
      });
    } else {
      const key = select(alias, meta, name);
      const read = nested.kind.read;
      parts.push({ name, read: (row) => columnValue(row[key], read) });
    }
  }
  return (row) => {
    const value: Record<string, unknown> = {};
    for (const part of parts) value[part.name] = part.read(row);
    return value;
  };
}

/**
 * Tenders for reading, as plain rows: entity hydration (identity map, change-set snapshots, relation wrappers)
 * was most of a list request's cost, and a read needs none of it (docs/benchmark.md). Filters stay MikroORM
 * filter queries, so visibility is still decided by `visibleTenders` alone.
 */
export async function findTenderRecords(em: EntityManager, { where, page }: TenderRecordQuery): Promise<TenderRecord[]> {
  const model = readModelOf(em.getMetadata());
  const build = ({ where, offset, limit }: { where: FilterQuery<Tender>; offset?: number; limit?: number }) => {
    const sqlEm = em as SqlEntityManager;
    let filter = where as QBFilterQuery<Tender>;
    if (page) {
      // A deferred join: the page's ids come from the tender table and its indexes alone, and the relations are
      // joined for those rows only; joined before the offset, SQLite looked up the relations of every skipped row.
      const ids = sqlEm.createQueryBuilder(Tender, 'page').select('page.id').where(filter).orderBy(page.orderBy).limit(limit, offset);
      filter = { id: { $in: ids.getKnexQuery() } };
    }
    const qb = sqlEm.createQueryBuilder(Tender, 't').select(model.columns);
    for (const { property, alias } of model.joins) qb.join(`t.${property}`, alias);
    qb.where(filter);
    if (page) qb.orderBy(page.orderBy);
    return qb.getKnexQuery();
  };
  // The order shapes the statement as it is; the filter's values and the page's bounds are bound.
  const literal = page ? JSON.stringify(page.orderBy) : 'one';
  const rows = await model.templates.rows(em, literal, { where, offset: page?.offset, limit: page?.limit }, build);
  return rows.map((row) => model.read(row));
}

/** Through the query builder: `em.count` spends more CPU on the same statement (docs/benchmark.md). */
export async function countTenders(em: EntityManager, where: FilterQuery<Tender>): Promise<number> {
  const row = await (em as SqlEntityManager)
    .createQueryBuilder(Tender, 't')
    .count()
    .where(where as QBFilterQuery<Tender>)
    .execute<{ count: number | string }>('get', false);
  return Number(row.count);
}

/** An insurer's invitations, in their index alone. */
export async function countInvitations(em: EntityManager, insurerId: string): Promise<number> {
  const row = await (em as SqlEntityManager)
    .createQueryBuilder(TenderInvitation, 'ti')
    .count()
    .where({ insurer: insurerId })
    .execute<{ count: number | string }>('get', false);
  return Number(row.count);
}

/** The same shape from a loaded entity (after a change, whose result the mutation returns). */
export function recordOfEntity(tender: Tender): TenderRecord {
  const record: Record<string, unknown> = {
    awardedInsurerId: tender.awardedInsurer?.id ?? null,
    policyNumber: tender.policyNumber ?? null,
    policyConfirmedAt: tender.policyConfirmedAt ?? null,
    policyDocumentId: tender.policyDocumentId ?? null,
    policyPeriodStart: tender.policyPeriodStart ?? null,
    policyPeriodEnd: tender.policyPeriodEnd ?? null,
    renewalType: tender.renewalType ?? null,
    noticePeriodMonths: tender.noticePeriodMonths ?? null,
    noticeDeadline: tender.noticeDeadline ?? null,
  };
  const properties = tender as unknown as Record<string, unknown>;
  for (const field of TENDER_FIELD_LIST) if (field.source !== 'derived') record[field.name] = properties[field.name] ?? null;
  return record as unknown as TenderRecord;
}
