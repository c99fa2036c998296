import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../src/database';

/** The suite runs on SQLite files, or on PostgreSQL when DATABASE_URL says so (one fresh database per app). */
export const SERVER_URL = /^postgres(ql)?:\/\//i.test(process.env.DATABASE_URL ?? '') ? process.env.DATABASE_URL! : undefined;

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function urlOf(name: string): string {
  const url = new URL(SERVER_URL!);
  url.pathname = `/${name}`;
  return url.toString();
}

const MIGRATIONS = join(__dirname, '../../src/platform/db/migrations/postgresql');

/**
 * A migrated database to copy (`create database … template`): a copy takes a few tens of ms where migrating a fresh
 * database takes most of a second, and the suite makes hundreds. Named by the migrations' contents, so a changed
 * migration gets a template of its own; built once per server under an advisory lock (test files run side by side,
 * and so may CI's legs), under a scratch name renamed when done, so no one copies a half-migrated one.
 */
let template: Promise<string> | undefined;
function migratedTemplate(): Promise<string> {
  template ??= admin(async (client) => {
    const hash = createHash('sha256');
    for (const file of readdirSync(MIGRATIONS).sort()) hash.update(file).update(readFileSync(join(MIGRATIONS, file)));
    const name = `tx_template_${hash.digest('hex').slice(0, 16)}`;
    await client.query('select pg_advisory_lock(hashtext($1))', [name]);
    try {
      const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
      if (rowCount === 0) {
        const building = `${name}_building`;
        await client.query(`drop database if exists ${building} with (force)`);
        await client.query(`create database ${building}`);
        const orm = await openDatabase({ databaseUrl: urlOf(building) });
        await orm.close();
        // No connections, as template0: a session on it (autovacuum's among them) would make a copy fail.
        await client.query(`alter database ${building} with allow_connections false`);
        await client.query(`alter database ${building} rename to ${name}`);
      }
      return name;
    } finally {
      await client.query('select pg_advisory_unlock(hashtext($1))', [name]);
    }
  }).catch((error: unknown) => {
    template = undefined;
    throw error;
  });
  return template;
}

/**
 * The database of a test data folder: its SQLite file, or a PostgreSQL database created for it on first use
 * (its URL kept in the folder, so a restarted app or a CLI run on the folder finds the same data). The PostgreSQL
 * database is a copy of the migrated template, so opening it finds no migration pending; `empty` asks for one
 * without tables (the migration tests).
 */
export async function databaseUrlFor(dataDir: string, { empty = false }: { empty?: boolean } = {}): Promise<string> {
  if (!SERVER_URL) return join(dataDir, 'tender-exchange.sqlite');
  const file = join(dataDir, 'database-url');
  if (existsSync(file)) return readFileSync(file, 'utf8');
  const name = `tx_test_${randomBytes(8).toString('hex')}`;
  const source = empty ? undefined : await migratedTemplate();
  await admin(async (client) => {
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(source ? `create database ${name} template ${source}` : `create database ${name}`);
        return;
      } catch (error) {
        // 55006: the source is in use for a moment (another copy of it starting, say); try again.
        if ((error as { code?: string }).code !== '55006' || attempt === 5) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  });
  writeFileSync(file, urlOf(name));
  return urlOf(name);
}

/** Drops the PostgreSQL database of a data folder, if it has one. */
export async function dropDatabaseFor(dataDir: string): Promise<void> {
  const file = join(dataDir, 'database-url');
  if (!SERVER_URL || !existsSync(file)) return;
  const name = new URL(readFileSync(file, 'utf8')).pathname.slice(1);
  await admin((client) => client.query(`drop database if exists ${name} with (force)`));
}

/** Removes a test data folder and its PostgreSQL database, if it has one. */
export async function removeDataDir(dataDir: string): Promise<void> {
  await dropDatabaseFor(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
}
