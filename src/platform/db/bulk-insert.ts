import type { EntityManager } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/knex';

/** Both SQLite (32 766) and PostgreSQL (65 535) accept this many bound parameters per statement. */
const MAX_PARAMETERS = 30_000;

/**
 * Inserts plain rows (column name → value) with multi-row `VALUES` statements, for bulk loads only.
 * knex's SQLite dialect turns multi-row inserts into `SELECT ... UNION ALL SELECT`, several times slower.
 */
export async function bulkInsert(em: EntityManager, table: string, rows: Record<string, unknown>[]): Promise<void> {
  if (rows.length === 0) return;
  const sqlEm = em as SqlEntityManager;
  const knex = sqlEm.getKnex();
  const platform = em.getPlatform();
  const columns = Object.keys(rows[0]);
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const convert = (value: unknown) =>
    value instanceof Date
      ? platform.processDateProperty(value)
      : value !== null && typeof value === 'object'
        ? JSON.stringify(value)
        : value;
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    const sql = `insert into ?? (${columns.map(() => '??').join(', ')}) values ${chunk.map(() => tuple).join(', ')}`;
    const bindings = [table, ...columns, ...chunk.flatMap((row) => columns.map((column) => convert(row[column] ?? null)))];
    await sqlEm.getConnection().execute(knex.raw(sql, bindings as never[]), [], 'run', sqlEm.getTransactionContext());
  }
}
