import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import { databaseEngine } from './orm-options';

/**
 * The statements MikroORM would still run to give the database the schema the entities describe (`migration:create`'s
 * comparison, without the migrations table): none when the two agree. Run on a database that holds every migration,
 * any statement is a change to the entities that no migration makes.
 */
export async function schemaDrift(orm: MikroORM): Promise<string[]> {
  const sql = await orm.getSchemaGenerator().getUpdateSchemaSQL({ wrap: false });
  return sql
    .split(/;\n/)
    .map((statement) => statement.trim())
    .filter(Boolean)
    .map((statement) => (statement.endsWith(';') ? statement : `${statement};`));
}

/**
 * Runs `work` on a fresh, empty database of the engine `databaseUrl` names, and removes it afterwards: a SQLite file
 * in a temporary folder, or a PostgreSQL database created on the server of `databaseUrl` (whose user may create
 * databases). `open` opens a database by its URL without migrating it.
 */
export async function withScratchDatabase<T>(
  databaseUrl: string,
  open: (databaseUrl: string) => Promise<MikroORM>,
  work: (orm: MikroORM) => Promise<T>,
): Promise<T> {
  if (databaseEngine(databaseUrl) === 'sqlite') {
    const folder = mkdtempSync(join(tmpdir(), 'tender-exchange-scratch-'));
    try {
      return await closing(await open(join(folder, 'scratch.sqlite')), work);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }
  const name = `tx_scratch_${randomBytes(6).toString('hex')}`;
  const scratchUrl = new URL(databaseUrl);
  scratchUrl.pathname = `/${name}`;
  await closing(await open(databaseUrl), (admin) => admin.em.getConnection().execute(`create database ${name}`));
  try {
    return await closing(await open(scratchUrl.toString()), work);
  } finally {
    await closing(await open(databaseUrl), (admin) => admin.em.getConnection().execute(`drop database if exists ${name} with (force)`));
  }
}

async function closing<T>(orm: MikroORM, work: (orm: MikroORM) => Promise<T>): Promise<T> {
  try {
    return await work(orm);
  } finally {
    await orm.close();
  }
}
