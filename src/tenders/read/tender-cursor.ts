import { raw, type EntityManager, type FilterQuery } from '@mikro-orm/core';
import { badInput } from '../../platform/errors/domain-error';
import { Cursor, LIMITS } from '../../platform/validation/rules';
import { timestampOfMillis } from '../../platform/validation/timestamp';
import { problemsOf } from '../../platform/validation/validate';
import { Tender } from '../tender.entity';
import { TenderStatus } from '../tender-status';
import { SortDirection, TenderSortField } from './tender.types';
import type { TenderRecord } from '../shape/tender-fields';

/** One key of a list's order; the list's last key is always the id, in the direction of the key before it. */
export interface OrderKey {
  field: TenderSortField | 'id';
  direction: SortDirection;
}

/** Where a page ends: the values of its last tender's order keys. */
export type Position = (string | number)[];

const VERSION = 1;
export const signatureOf = (keys: readonly OrderKey[]) => keys.map((key) => `${key.field}:${key.direction}`).join(',');
const isTimestamp = (field: OrderKey['field']) => field === TenderSortField.CREATED_AT || field === TenderSortField.UPDATED_AT;

/** Where a tender stands in a list's order: its values of the order keys. */
export function positionOfRecord(record: TenderRecord, keys: readonly OrderKey[]): Position {
  return keys.map(({ field }) => {
    const value = record[field];
    return value instanceof Date ? value.getTime() : value;
  });
}

/**
 * The opaque `after` cursor of the page that follows `last`: the sort it belongs to and the last tender's values
 * of every order key, base64url JSON. Nothing in it is secret (it repeats what the page showed) and whatever a
 * client forges only moves it within its own visible tenders.
 */
export function cursorAfter(last: TenderRecord, keys: readonly OrderKey[]): string {
  return Buffer.from(JSON.stringify([VERSION, signatureOf(keys), ...positionOfRecord(last, keys)])).toString('base64url');
}

/** The position a cursor names; a cursor that is malformed or was made for another order is BAD_USER_INPUT. */
export function positionOf(cursor: string, keys: readonly OrderKey[]): Position {
  const refuse = (message: string) => badInput(`after ${message}`, [{ parameter: 'after', message }]);
  const notOurs = 'is not a cursor this API gave out (metadata.next of a page)';
  let decoded: unknown;
  try {
    if (problemsOf(Cursor, cursor).length > 0) throw new Error(notOurs);
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refuse(notOurs);
  }
  if (!Array.isArray(decoded) || decoded[0] !== VERSION || decoded.length !== keys.length + 2) throw refuse(notOurs);
  if (decoded[1] !== signatureOf(keys)) throw refuse('belongs to a list in another order: keep the sort of the page that gave it');
  const values = decoded.slice(2) as unknown[];
  keys.forEach(({ field }, i) => {
    if (!couldHaveIssued(field, values[i])) throw refuse(notOurs);
  });
  return values as Position;
}

const STATUSES: readonly unknown[] = Object.values(TenderStatus);

/**
 * Whether a tender's value of an order key could be in a cursor the gateway gave out: what a tender row can hold.
 * Anything else would reach the database as a parameter it cannot take (an instant beyond the timestamp rule, a NUL
 * PostgreSQL refuses), so it is refused as a forged cursor.
 */
function couldHaveIssued(field: OrderKey['field'], value: unknown): boolean {
  switch (field) {
    case TenderSortField.CREATED_AT:
    case TenderSortField.UPDATED_AT:
      return timestampOfMillis(value) !== undefined;
    case TenderSortField.STATUS:
      return STATUSES.includes(value);
    case 'id':
      // Tender ids are UUIDs (newId; the seed's faker UUIDs), in a 36-character column.
      return typeof value === 'string' && /^[\w-]{1,36}$/.test(value);
    case TenderSortField.PRODUCT:
      // Not the product rule of today: tenders stored before it may hold any character but NUL, and their cursors work.
      return typeof value === 'string' && !value.includes('\0') && [...value].length <= LIMITS.name;
  }
}

/**
 * The tenders after a position in the list's order, as a row-value comparison when every key runs one way (both
 * engines then seek the order's index to the position) and as its expansion otherwise.
 */
export function afterPosition(em: EntityManager, keys: readonly OrderKey[], position: Position): FilterQuery<Tender> {
  const meta = em.getMetadata().get(Tender.name);
  const platform = em.getPlatform();
  const columnOf = (field: OrderKey['field']) => meta.properties[field].fieldNames[0];
  const params = keys.map(({ field }, i) =>
    isTimestamp(field) ? platform.processDateProperty(timestampOfMillis(position[i])!) : position[i],
  );
  const beyond = (direction: SortDirection) => (direction === SortDirection.DESC ? '<' : '>');
  if (keys.every((key) => key.direction === keys[0].direction)) {
    const sql = (alias: string) =>
      `(${keys.map((key) => `${alias}.${columnOf(key.field)}`).join(', ')}) ${beyond(keys[0].direction)} (${keys.map(() => '?').join(', ')})`;
    return { [raw(sql, params)]: [] };
  }
  // ((k1 > v1) or (k1 = v1 and k2 < v2) or ...), each key in its own direction; the outer parentheses keep the
  // disjunction inside the conjunction of visibility and filters it is one part of.
  const expanded = (alias: string) =>
    '(' +
    keys
      .map(
        (key, i) =>
          `(${[...keys.slice(0, i).map((earlier) => `${alias}.${columnOf(earlier.field)} = ?`), `${alias}.${columnOf(key.field)} ${beyond(key.direction)} ?`].join(' and ')})`,
      )
      .join(' or ') +
    ')';
  return {
    [raw(
      expanded,
      keys.flatMap((_, i) => params.slice(0, i + 1)),
    )]: [],
  };
}
