import type { Migration } from '@mikro-orm/migrations';

/**
 * SQLite cannot change a CHECK constraint or a NOT NULL in place: a table is rebuilt as SQLite prescribes
 * (https://sqlite.org/lang_altertable.html#otheralter), from its own current definition with only that clause
 * changed. Foreign keys are off for it (only possible outside a transaction), the work runs in one transaction of its
 * own and is checked with foreign_key_check before it commits. A migration using these is not transactional itself.
 */
type Execute = Migration['execute'];

/** Foreign keys off, `work` in one transaction, checked before it commits. */
export async function withForeignKeysOff(execute: Execute, work: () => Promise<void>): Promise<void> {
  await execute('pragma foreign_keys = off');
  try {
    await execute('begin');
    try {
      await work();
      const violations = await execute('pragma foreign_key_check');
      if (violations.length > 0) throw new Error(`the rebuilt tables break ${violations.length} foreign keys`);
      await execute('commit');
    } catch (error) {
      await execute('rollback');
      throw error;
    }
  } finally {
    await execute('pragma foreign_keys = on');
  }
}

/** The table again from its current definition changed by `change`, with its rows and indexes. */
export async function rebuildTable(execute: Execute, table: string, change: (sql: string) => string): Promise<void> {
  const [{ sql }] = (await execute(`select sql from sqlite_master where type = 'table' and name = '${table}'`)) as { sql: string }[];
  const changed = change(sql);
  if (changed === sql) throw new Error(`the definition of ${table} is not the one this migration knows`);
  const indexes = (await execute(`select sql from sqlite_master where type = 'index' and tbl_name = '${table}' and sql is not null`)) as {
    sql: string;
  }[];
  const columns = ((await execute(`pragma table_info(\`${table}\`)`)) as { name: string }[]).map((c) => `\`${c.name}\``).join(', ');
  const rebuilt = `${table}_rebuilt`;
  const create = changed.replace(/^CREATE TABLE (IF NOT EXISTS )?("[^"]+"|`[^`]+`|\w+)/i, `create table \`${rebuilt}\``);
  await execute(create);
  await execute(`insert into \`${rebuilt}\` (${columns}) select ${columns} from \`${table}\`;`);
  await execute(`drop table \`${table}\`;`);
  await execute(`alter table \`${rebuilt}\` rename to \`${table}\`;`);
  for (const index of indexes) await execute(index.sql);
}
