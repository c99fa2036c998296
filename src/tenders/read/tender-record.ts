import { ReferenceKind, raw, type EntityManager, type FilterQuery, type MetadataStorage, type QueryOrderMap, type RawQueryFragment } from '@mikro-orm/core';
import type { QBFilterQuery, EntityManager as SqlEntityManager } from '@mikro-orm/knex';
import type { Address } from '../../parties/address.embeddable';
import type { BrokerCompany } from '../../parties/broker-company.entity';
import type { Customer } from '../../parties/customer.entity';
import type { Person } from '../../parties/person.entity';
import type { LineOfBusiness } from '../line-of-business.entity';
import { Tender } from '../tender.entity';
import type { TenderStatus } from '../tender-status';

/** What a tender representation shows, as plain data: read with its relations in one query, without hydration. */
export interface TenderRecord {
  id: string;
  status: TenderStatus;
  product: string;
  taxRate: number;
  lineOfBusiness: LineOfBusiness;
  customer: Customer;
  brokerCompany: BrokerCompany;
  personInCharge: Person;
  awardedInsurerId: string | null;
  policyNumber: string | null;
  policyConfirmedAt: Date | null;
  changesMetadata: Record<string, string>;
  createdAt: Date;
  updatedAt: Date;
}

interface TenderRecordQuery {
  where: FilterQuery<Tender>;
  page?: { orderBy: QueryOrderMap<Tender>[]; offset: number; limit: number };
}

type Row = Record<string, unknown>;

/** The entities a tender representation reads, by the alias the query gives them, and the properties it shows. */
const SHOWN = {
  t: { entity: 'Tender', properties: ['id', 'status', 'product', 'taxRate', 'awardedInsurer', 'policyNumber', 'policyConfirmedAt', 'changesMetadata', 'createdAt', 'updatedAt'] },
  l: { entity: 'LineOfBusiness', properties: ['id', 'name'] },
  c: { entity: 'Customer', properties: ['id', 'companyId', 'name', 'address'] },
  b: { entity: 'BrokerCompany', properties: ['id', 'companyId', 'email', 'name', 'address'] },
  p: { entity: 'Person', properties: ['id', 'accountId', 'email', 'firstName', 'lastName', 'salutation'] },
} as const;
type Alias = keyof typeof SHOWN;

/** Where each shown property is in a result row: `<alias>_<property>`, an embedded object by its parts. */
interface ReadModel {
  columns: RawQueryFragment;
  embedded: Map<string, { key: string; part: string }[]>;
}

const readModels = new WeakMap<MetadataStorage, ReadModel>();

/**
 * Every column the representation needs, from the entity metadata, each under a unique name in the result
 * row: built once, so no request resolves the names against the metadata again (the query builder would, for
 * each of the 37 columns, on every request).
 */
function readModelOf(metadata: MetadataStorage): ReadModel {
  let model = readModels.get(metadata);
  if (model) return model;
  const columns: string[] = [];
  const embedded = new Map<string, { key: string; part: string }[]>();
  for (const [alias, { entity, properties }] of Object.entries(SHOWN)) {
    const meta = metadata.get(entity);
    for (const name of properties as readonly string[]) {
      const property = meta.properties[name as keyof typeof meta.properties];
      if (property.kind === ReferenceKind.EMBEDDED) {
        const parts = Object.values(meta.properties).filter((part) => part.embedded?.[0] === name);
        embedded.set(`${alias}_${name}`, parts.map((part) => ({ key: `${alias}_${part.name}`, part: part.embedded![1] })));
        for (const part of parts) columns.push(`${alias}.${part.fieldNames[0]} as "${alias}_${part.name}"`);
      } else {
        columns.push(`${alias}.${property.fieldNames[0]} as "${alias}_${name}"`);
      }
    }
  }
  model = { columns: raw(columns.join(', ')), embedded };
  readModels.set(metadata, model);
  return model;
}

/**
 * Tenders for reading, as plain rows: entity hydration (identity map, change-set snapshots, relation wrappers)
 * was most of a list request's cost, and a read needs none of it (docs/benchmark.md). Filters stay MikroORM
 * filter queries, so visibility is still decided by `visibleTenders` alone.
 */
export async function findTenderRecords(em: EntityManager, { where, page }: TenderRecordQuery): Promise<TenderRecord[]> {
  const sqlEm = em as SqlEntityManager;
  let filter = where as QBFilterQuery<Tender>;
  if (page) {
    // A deferred join: the page's ids come from the tender table and its indexes alone, and the relations are
    // joined for those rows only; joined before the offset, SQLite looked up the relations of every skipped row.
    const ids = sqlEm.createQueryBuilder(Tender, 'page').select('page.id').where(filter).orderBy(page.orderBy).limit(page.limit, page.offset);
    filter = { id: { $in: ids.getKnexQuery() } };
  }
  const model = readModelOf(em.getMetadata());
  const qb = sqlEm
    .createQueryBuilder(Tender, 't')
    .select(model.columns)
    .join('t.lineOfBusiness', 'l')
    .join('t.customer', 'c')
    .join('t.brokerCompany', 'b')
    .join('t.personInCharge', 'p')
    .where(filter);
  if (page) qb.orderBy(page.orderBy);
  const rows = await qb.execute<Row[]>('all', false);
  return rows.map((row) => toRecord(row, model));
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

/** The same shape from a loaded entity (after a change, whose result the mutation returns). */
export function recordOfEntity(tender: Tender): TenderRecord {
  return {
    id: tender.id,
    status: tender.status,
    product: tender.product,
    taxRate: tender.taxRate,
    lineOfBusiness: tender.lineOfBusiness,
    customer: tender.customer,
    brokerCompany: tender.brokerCompany,
    personInCharge: tender.personInCharge,
    awardedInsurerId: tender.awardedInsurer?.id ?? null,
    policyNumber: tender.policyNumber ?? null,
    policyConfirmedAt: tender.policyConfirmedAt ?? null,
    changesMetadata: tender.changesMetadata,
    createdAt: tender.createdAt,
    updatedAt: tender.updatedAt,
  };
}

function toRecord(row: Row, model: ReadModel): TenderRecord {
  const value = (alias: Alias, property: string) => row[`${alias}_${property}`];
  const address = (alias: Alias): Address =>
    Object.fromEntries(model.embedded.get(`${alias}_address`)!.map(({ key, part }) => [part, row[key]])) as unknown as Address;
  return {
    id: value('t', 'id') as string,
    status: value('t', 'status') as TenderStatus,
    product: value('t', 'product') as string,
    taxRate: Number(value('t', 'taxRate')),
    lineOfBusiness: { id: value('l', 'id') as string, name: value('l', 'name') as string },
    customer: { id: value('c', 'id') as string, companyId: value('c', 'companyId') as string, name: value('c', 'name') as string, address: address('c') },
    brokerCompany: {
      id: value('b', 'id') as string,
      companyId: value('b', 'companyId') as string,
      email: value('b', 'email') as string,
      name: value('b', 'name') as string,
      address: address('b'),
    },
    personInCharge: {
      id: value('p', 'id') as string,
      accountId: value('p', 'accountId') as string,
      email: value('p', 'email') as string,
      firstName: value('p', 'firstName') as string,
      lastName: value('p', 'lastName') as string,
      salutation: value('p', 'salutation') as string,
    },
    awardedInsurerId: (value('t', 'awardedInsurer') as string | null) ?? null,
    policyNumber: (value('t', 'policyNumber') as string | null) ?? null,
    policyConfirmedAt: value('t', 'policyConfirmedAt') === null || value('t', 'policyConfirmedAt') === undefined ? null : toDate(value('t', 'policyConfirmedAt')),
    changesMetadata: typeof value('t', 'changesMetadata') === 'string' ? JSON.parse(value('t', 'changesMetadata') as string) : (value('t', 'changesMetadata') as Record<string, string>),
    createdAt: toDate(value('t', 'createdAt')),
    updatedAt: toDate(value('t', 'updatedAt')),
  };
}

/** SQLite keeps datetimes as epoch milliseconds; on PostgreSQL, MikroORM has the driver return timestamptz text. */
function toDate(value: unknown): Date {
  if (value instanceof Date) return value;
  return new Date(typeof value === 'number' ? value : String(value));
}
