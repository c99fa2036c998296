import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { MikroORM, type Options } from '@mikro-orm/core';
import type { Config } from './platform/config';
import { databaseEngine, ormOptions as engineOptions } from './platform/db/orm-options';
import { schemaDrift, withScratchDatabase } from './platform/db/migration-check';
import { authModule } from './auth';
import { RateLimitCounter } from './platform/http/rate-limit-counter.entity';
import { insurersModule } from './insurers';
import { quotesModule } from './quotes';
import { partiesModule } from './parties';
import { tendersModule } from './tenders';
import { webhooksModule } from './webhooks';
import { mailModule } from './mail';
import { documentsModule } from './documents';
import { privacyModule } from './privacy';
import { riskModule } from './risk';
import { messagesModule } from './messages';
import { linksModule } from './links';

/** Every feature's entities: the gateway's database. */
const entities = [
  ...partiesModule.entities,
  ...insurersModule.entities,
  ...linksModule.entities,
  ...authModule.entities,
  ...tendersModule.entities,
  ...riskModule.entities,
  ...quotesModule.entities,
  ...documentsModule.entities,
  ...messagesModule.entities,
  ...privacyModule.entities,
  ...webhooksModule.entities,
  ...mailModule.entities,
  RateLimitCounter,
];

/** The ORM options for the configured database, as the application, the CLI and `mikro-orm.config.ts` use them. */
export const ormOptions = (config: Pick<Config, 'databaseUrl'>, overrides: Partial<Options> = {}): Options =>
  engineOptions(config, entities, overrides);

/** Opens the configured database (creating a SQLite file's folder) and applies pending migrations. */
export async function openDatabase(
  config: Pick<Config, 'databaseUrl'>,
  { migrate = true, overrides = {} }: { migrate?: boolean; overrides?: Partial<Options> } = {},
): Promise<MikroORM> {
  if (databaseEngine(config.databaseUrl) === 'sqlite' && config.databaseUrl !== ':memory:') {
    mkdirSync(dirname(config.databaseUrl), { recursive: true });
  }
  const orm = await MikroORM.init(ormOptions(config, overrides));
  if (migrate) await orm.getMigrator().up();
  return orm;
}

/**
 * The outbox workers' own pool on PostgreSQL, so a burst of background work never takes the connections requests
 * need. On SQLite the workers share the requests' one connection (undefined here): with a connection of their
 * own, their write transactions and the callbacks' writes met at SQLite's file lock, whose waits sleep (1, 2, 5,
 * 10 ms and more), and callbacks at 200/s answered later, not sooner (docs/benchmark.md).
 */
export async function openWorkerDatabase(config: Pick<Config, 'databaseUrl'>): Promise<MikroORM | undefined> {
  if (databaseEngine(config.databaseUrl) !== 'postgresql') return undefined;
  return MikroORM.init(ormOptions(config, { pool: { min: 0, max: 4 } }));
}

/**
 * Whether the migrations build the schema the entities describe: a fresh database of the configured engine (a
 * temporary SQLite file, or a database created and dropped again on the PostgreSQL server) gets every migration, and
 * the answer is the SQL the entities would still need there, none when they agree. A column length raised in an
 * entity (or a field limit behind it) without a migration shows here as an `alter table`.
 */
export async function migrationDrift(config: Pick<Config, 'databaseUrl'>): Promise<string[]> {
  return withScratchDatabase(
    config.databaseUrl,
    (databaseUrl) => openDatabase({ databaseUrl }, { migrate: false }),
    async (orm) => {
      await orm.getMigrator().up();
      return schemaDrift(orm);
    },
  );
}

/**
 * A migration for what the entities describe beyond the migrations (on a fresh database of the configured engine,
 * so a developer's own data plays no part), written to that engine's migrations folder and added to its index.
 */
export async function createMigration(config: Pick<Config, 'databaseUrl'>): Promise<string | undefined> {
  return withScratchDatabase(
    config.databaseUrl,
    (databaseUrl) => openDatabase({ databaseUrl }, { migrate: false }),
    async (orm) => {
      await orm.getMigrator().up();
      const { fileName } = await orm.getMigrator().createMigration();
      if (!fileName) return undefined;
      const folder = orm.config.get('migrations').pathTs!;
      registerMigration(join(folder, 'index.ts'), basename(fileName).replace(/\.ts$/, ''));
      return join(folder, basename(fileName));
    },
  );
}

/** Adds a migration to an index: its import after the last one, its entry at the end of the list. */
function registerMigration(indexFile: string, name: string): void {
  const source = readFileSync(indexFile, 'utf8');
  const imports = [...source.matchAll(/^import \{ Migration\d+ \} from .*$/gm)];
  const last = imports[imports.length - 1];
  const afterImports = last.index + last[0].length;
  const withImport = `${source.slice(0, afterImports)}\nimport { ${name} } from './${name}';${source.slice(afterImports)}`;
  const end = withImport.lastIndexOf('];');
  writeFileSync(indexFile, `${withImport.slice(0, end)}  { name: '${name}', class: ${name} },\n${withImport.slice(end)}`);
}
