import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { EntityManager } from '@mikro-orm/core';

/** Every table of the database, from its catalog (not a list of ours): a new table is searched without a change here. */
async function tablesOf(em: EntityManager): Promise<string[]> {
  const connection = em.getConnection();
  const rows = isPostgres(em)
    ? ((await connection.execute(
        `select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`,
      )) as { name: string }[])
    : ((await connection.execute(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`)) as {
        name: string;
      }[]);
  return rows.map((row) => row.name).sort();
}

function isPostgres(em: EntityManager): boolean {
  return em.getPlatform().constructor.name.toLowerCase().includes('postgre');
}

/**
 * Where any of `markers` is still held: `table: marker` for every table whose rows, every column read as text,
 * contain it (case-insensitive), and `store: file` for every file under the document store's folder whose bytes do.
 */
export async function whereMarkersAre(em: EntityManager, markers: readonly string[], storeDir?: string): Promise<string[]> {
  const found: string[] = [];
  const tables = await tablesOf(em);
  for (const table of tables) {
    const rows = (await em.getConnection().execute(`select * from "${table}"`)) as Record<string, unknown>[];
    const text = JSON.stringify(rows, (_key, value: unknown) =>
      typeof value === 'bigint' ? value.toString() : Buffer.isBuffer(value) ? value.toString('latin1') : value,
    ).toLowerCase();
    for (const marker of markers) if (text.includes(marker.toLowerCase())) found.push(`${table}: ${marker}`);
  }
  if (storeDir) {
    for (const file of filesUnder(storeDir)) {
      const bytes = readFileSync(file).toString('latin1').toLowerCase();
      for (const marker of markers) if (bytes.includes(marker.toLowerCase())) found.push(`store ${file}: ${marker}`);
    }
  }
  if (tables.length < 20) found.push(`only ${tables.length} tables found: the catalog query missed some`);
  return found;
}

function filesUnder(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
