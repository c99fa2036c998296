import {
  ReferenceKind,
  raw,
  type EntityManager,
  type FilterQuery,
  type MetadataStorage,
  type QueryOrderMap,
  type RawQueryFragment,
} from '@mikro-orm/core';
import type { QBFilterQuery, EntityManager as SqlEntityManager } from '@mikro-orm/knex';
import type { Address, BrokerCompany, Customer, Person } from '../../parties';
import type { LineOfBusiness } from '../line-of-business.entity';
import { Tender } from '../tender.entity';
import { TenderInvitation } from '../tender-invitation.entity';
import { dateOfColumn, jsonOfColumn } from '../../platform/db/column-values';
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
  t: {
    entity: 'Tender',
    properties: [
      'id',
      'status',
      'product',
      'taxRate',
      'awardedInsurer',
      'policyNumber',
      'policyConfirmedAt',
      'changesMetadata',
      'createdAt',
      'updatedAt',
    ],
  },
  l: { entity: 'LineOfBusiness', properties: ['id', 'name'] },
  c: { entity: 'Customer', properties: ['id', 'companyId', 'name', 'address'] },
  b: { entity: 'BrokerCompany', properties: ['id', 'companyId', 'email', 'name', 'address'] },
  p: { entity: 'Person', properties: ['id', 'accountId', 'email', 'firstName', 'lastName', 'salutation'] },
} as const;

/** Where each shown property is in a result row: `<alias>_<property>`, an embedded object by its parts. */
interface ReadModel {
  columns: RawQueryFragment;
  customerAddress: readonly { key: string; part: string }[];
  brokerAddress: readonly { key: string; part: string }[];
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
      const property = meta.properties[name];
      if (property.kind === ReferenceKind.EMBEDDED) {
        const parts = Object.values(meta.properties).filter((part) => part.embedded?.[0] === name);
        embedded.set(
          `${alias}_${name}`,
          parts.map((part) => ({ key: `${alias}_${part.name}`, part: part.embedded![1] })),
        );
        for (const part of parts) columns.push(`${alias}.${part.fieldNames[0]} as "${alias}_${part.name}"`);
      } else {
        columns.push(`${alias}.${property.fieldNames[0]} as "${alias}_${name}"`);
      }
    }
  }
  model = { columns: raw(columns.join(', ')), customerAddress: embedded.get('c_address')!, brokerAddress: embedded.get('b_address')! };
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
    const ids = sqlEm
      .createQueryBuilder(Tender, 'page')
      .select('page.id')
      .where(filter)
      .orderBy(page.orderBy)
      .limit(page.limit, page.offset);
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
  // Plain reads by the result row's names: this runs for every tender of every page.
  const policyConfirmedAt = row.t_policyConfirmedAt;
  const changesMetadata = row.t_changesMetadata;
  return {
    id: row.t_id as string,
    status: row.t_status as TenderStatus,
    product: row.t_product as string,
    taxRate: Number(row.t_taxRate),
    lineOfBusiness: { id: row.l_id as string, name: row.l_name as string },
    customer: {
      id: row.c_id as string,
      companyId: row.c_companyId as string,
      name: row.c_name as string,
      address: addressOf(row, model.customerAddress),
    },
    brokerCompany: {
      id: row.b_id as string,
      companyId: row.b_companyId as string,
      email: row.b_email as string,
      name: row.b_name as string,
      address: addressOf(row, model.brokerAddress),
    },
    personInCharge: {
      id: row.p_id as string,
      accountId: row.p_accountId as string,
      email: row.p_email as string,
      firstName: row.p_firstName as string,
      lastName: row.p_lastName as string,
      salutation: row.p_salutation as string,
    },
    awardedInsurerId: (row.t_awardedInsurer as string | null) ?? null,
    policyNumber: (row.t_policyNumber as string | null) ?? null,
    policyConfirmedAt: policyConfirmedAt === null || policyConfirmedAt === undefined ? null : dateOfColumn(policyConfirmedAt),
    changesMetadata: jsonOfColumn<Record<string, string>>(changesMetadata),
    createdAt: dateOfColumn(row.t_createdAt),
    updatedAt: dateOfColumn(row.t_updatedAt),
  };
}

function addressOf(row: Row, parts: readonly { key: string; part: string }[]): Address {
  const address: Record<string, unknown> = {};
  for (const { key, part } of parts) address[part] = row[key];
  return address as unknown as Address;
}
