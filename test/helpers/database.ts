import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

/** The suite runs on SQLite files, or on PostgreSQL when DATABASE_URL says so (one fresh database per app). */
export const SERVER_URL = /^postgres(ql)?:\/\//i.test(process.env.DATABASE_URL ?? '') ? process.env.DATABASE_URL! : undefined;

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * The database of a test data folder: its SQLite file, or a PostgreSQL database created for it on first use
 * (its URL kept in the folder, so a restarted app or a CLI run on the folder finds the same data).
 */
export async function databaseUrlFor(dataDir: string): Promise<string> {
  if (!SERVER_URL) return join(dataDir, 'tender-exchange.sqlite');
  const file = join(dataDir, 'database-url');
  if (existsSync(file)) return readFileSync(file, 'utf8');
  const name = `tx_test_${randomBytes(8).toString('hex')}`;
  await admin(`create database ${name}`);
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  writeFileSync(file, url.toString());
  return url.toString();
}

/** Drops the PostgreSQL database of a data folder, if it has one. */
export async function dropDatabaseFor(dataDir: string): Promise<void> {
  const file = join(dataDir, 'database-url');
  if (!SERVER_URL || !existsSync(file)) return;
  const name = new URL(readFileSync(file, 'utf8')).pathname.slice(1);
  await admin(`drop database if exists ${name} with (force)`);
}
