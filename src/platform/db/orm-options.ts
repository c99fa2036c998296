import { Migrator } from '@mikro-orm/migrations';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import type { EntityClass, EntitySchema, Options } from '@mikro-orm/core';
import type { Config } from '../config';
import { postgresqlMigrations } from './migrations/postgresql';
import { sqliteMigrations } from './migrations/sqlite';
import { SqliteDriver } from './sqlite-driver';

/**
 * Per-connection SQLite settings. WAL lets readers proceed during writes, and NORMAL sync is durable in WAL
 * mode except on power loss. 8 MiB of page cache (default 2 MiB) keeps the hot index pages in the process; the
 * rest of the file is in the system's file cache anyway. 64 MiB cost 40 MB of resident memory on 100 000 tenders for
 * no measurable CPU; 8 MiB rather than 16 keeps the production start under 200 MiB, for a few per cent of CPU on
 * pages of 50 and more (docs/benchmark.md).
 */
const SQLITE_PRAGMAS = [
  'pragma journal_mode = wal',
  'pragma synchronous = normal',
  'pragma cache_size = -8192',
  'pragma foreign_keys = on',
  // Another process (a second gateway, the CLI) may hold the write lock for a moment: wait instead of failing.
  'pragma busy_timeout = 5000',
];

interface SqliteConnection {
  exec(sql: string): void;
}

function sqliteConnectionSettings(connection: SqliteConnection, done: (error: Error | null, connection: SqliteConnection) => void): void {
  try {
    connection.exec(`${SQLITE_PRAGMAS.join('; ')};`);
    done(null, connection);
  } catch (error) {
    done(error as Error, connection);
  }
}

export type DatabaseEngine = 'sqlite' | 'postgresql';

export function databaseEngine(databaseUrl: string): DatabaseEngine {
  return /^postgres(ql)?:\/\//i.test(databaseUrl) ? 'postgresql' : 'sqlite';
}

/**
 * Entities and migrations are listed statically so the same code runs under tsx, vitest and compiled
 * JavaScript without file-system discovery (esbuild emits no decorator metadata either way). Each engine has
 * its own migrations, generated from the same entities.
 */
export function ormOptions(
  config: Pick<Config, 'databaseUrl'>,
  entities: readonly (EntityClass<unknown> | EntitySchema)[],
  overrides: Partial<Options> = {},
): Options {
  const engine = databaseEngine(config.databaseUrl);
  const common: Options = {
    entities: [...entities],
    extensions: [Migrator],
    discovery: { disableDynamicFileAccess: true, requireEntitiesArray: true },
    migrations: {
      migrationsList: engine === 'postgresql' ? postgresqlMigrations : sqliteMigrations,
      transactional: true,
      // SQLite: a table rebuild must run outside any transaction (foreign keys off), so each migration has its own.
      allOrNothing: engine === 'postgresql',
      snapshot: false,
      silent: true,
      path: `src/platform/db/migrations/${engine}`,
      pathTs: `src/platform/db/migrations/${engine}`,
      emit: 'ts',
    },
    forceUtcTimezone: true,
    allowGlobalContext: false,
    debug: false,
  };
  const engineOptions: Options =
    engine === 'postgresql'
      ? { driver: PostgreSqlDriver, clientUrl: config.databaseUrl, pool: { min: 0, max: 10 } }
      : { driver: SqliteDriver, dbName: config.databaseUrl, pool: { afterCreate: sqliteConnectionSettings } };
  return { ...common, ...engineOptions, ...overrides };
}
