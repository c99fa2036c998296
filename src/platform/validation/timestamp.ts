/** ISO 8601 / RFC 3339 date-time with seconds and an explicit offset; fractions of a second optional. */
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,9})?(Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

/**
 * A timestamp every API accepts: the format above, a real calendar day, and an instant within the years
 * 0001–9999 UTC, so that it prints back in the same format.
 */
export function parseTimestamp(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TIMESTAMP.exec(value);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
  const date = new Date(value);
  const utcYear = date.getUTCFullYear();
  return Number.isNaN(date.getTime()) || utcYear < 1 || utcYear > 9999 ? undefined : date;
}
