import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MikroORM, type Options } from '@mikro-orm/core';
import type { Config } from '../config';
import { databaseEngine, ormOptions } from './orm-options';

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
