import { GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { GraphQLDateTimeISO } from 'graphql-scalars';

/**
 * The one timestamp rule of the gateway, for every timestamp a client sends: REST parameters and bodies (JSON
 * Schema's `date-time`, validate.ts), the GraphQL scalar below, the instants inside `after` cursors, a token's
 * `expiry`. Years 0001–9999 UTC: what prints back in this format, and what both databases store (PostgreSQL has no
 * year 0 and JavaScript dates end in 275760).
 */
export const TIMESTAMP_RULE =
  'an ISO 8601 timestamp with seconds and an offset, a real calendar day, years 0001–9999 UTC (e.g. 2026-05-04T09:15:00.000Z)';

/** ISO 8601 / RFC 3339 date-time with seconds and an explicit offset; fractions of a second optional. */
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,9})?(Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;
const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/** An instant as milliseconds since 1970, if it is a whole number of them within the years 0001–9999 UTC. */
export function timestampOfMillis(value: unknown): Date | undefined {
  return Number.isSafeInteger(value) && (value as number) >= EARLIEST && (value as number) <= LATEST
    ? new Date(value as number)
    : undefined;
}

/** A timestamp in the format above, on a real calendar day, within the years 0001–9999 UTC. */
export function parseTimestamp(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TIMESTAMP.exec(value);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // Date.UTC reads years 0–99 as 1900–1999; the day count of a month is the same in year y and y + 400.
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year + 400, month, 0)).getUTCDate()) return undefined;
  return timestampOfMillis(new Date(value).getTime());
}

function parsed(value: unknown): Date {
  const date = parseTimestamp(value);
  if (!date) throw new TypeError(`must be ${TIMESTAMP_RULE}`);
  return date;
}

/**
 * graphql-scalars' DateTimeISO (same name and answers, so clients keep their documents) whose inputs follow the
 * timestamp rule: a value it refuses is a BAD_USER_INPUT, never a date the databases cannot take.
 */
export const TimestampScalar = new GraphQLScalarType<Date, string>({
  ...GraphQLDateTimeISO.toConfig(),
  description: `A timestamp: ${TIMESTAMP_RULE}. Answered in UTC with milliseconds.`,
  parseValue: parsed,
  parseLiteral: (ast: ValueNode) => {
    if (ast.kind !== Kind.STRING) throw new TypeError(`must be ${TIMESTAMP_RULE}`);
    return parsed(ast.value);
  },
});
