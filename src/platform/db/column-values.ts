/** A datetime column read by raw SQL: SQLite keeps epoch milliseconds; on PostgreSQL, MikroORM has the driver return timestamptz text. */
export function dateOfColumn(value: unknown): Date {
  if (value instanceof Date) return value;
  return new Date(typeof value === 'number' ? value : String(value));
}

/** A JSON column read by raw SQL: SQLite gives its text, PostgreSQL (jsonb) the parsed value. */
export function jsonOfColumn<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}
