import { Float, ID } from 'type-graphql';
import { dateOfColumn, jsonOfColumn } from '../../platform/db/column-values';
import { JSONObjectScalar } from '../../platform/validation/json';
import { TimestampScalar } from '../../platform/validation/timestamp';
import { ALL_STATUSES, TenderStatus } from '../tender-status';

/**
 * A value of the tender's representation in each of its faces: its GraphQL type, its JSON Schema (the OpenAPI
 * document) and how its column reads back from a raw row.
 */
export interface ValueKind<V> {
  readonly graphql: () => object;
  readonly schema: Readonly<Record<string, unknown>>;
  readonly read: (column: unknown) => V;
}

const kind = <V>(graphql: () => object, schema: Record<string, unknown>, read: (column: unknown) => V): ValueKind<V> => ({
  graphql,
  schema,
  read,
});

const asString = (column: unknown) => column as string;

export const kinds = {
  id: kind(() => ID, { type: 'string', examples: ['7d3c9a52-4f1e-4b8a-9c6d-2e5f8a1b0c34'] }, asString),
  text: kind(() => String, { type: 'string' }, asString),
  countryCode: kind(
    () => String,
    { type: 'string', description: 'Two-letter country code, or empty.', pattern: '^([A-Z]{2})?$' },
    asString,
  ),
  day: kind(() => String, { type: 'string', format: 'date', examples: ['2026-05-04'] }, asString),
  decimal: kind(() => Float, { type: 'number' }, Number),
  timestamp: kind(() => TimestampScalar, { type: 'string', format: 'date-time', examples: ['2026-05-04T09:15:00.000Z'] }, dateOfColumn),
  status: kind(
    () => TenderStatus,
    { enum: [...ALL_STATUSES], examples: ['QUOTES_AVAILABLE'] },
    (column) => column as TenderStatus,
  ),
  statusTimestamps: kind(
    () => JSONObjectScalar,
    {
      type: 'object',
      propertyNames: { pattern: '^status_changed_to_[a-z_]+$' },
      additionalProperties: { type: 'string', format: 'date-time', examples: ['2026-05-04T09:15:00.000Z'] },
    },
    (column) => jsonOfColumn<Record<string, string>>(column),
  ),
} as const;
