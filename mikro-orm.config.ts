import 'reflect-metadata';
import { loadConfig } from './src/platform/config';
import { ormOptions } from './src/database';

/**
 * The ORM configuration for the configured database, as the application and the CLI use it.
 * @public MikroORM's own CLI imports this file's default export; nothing in the repo does.
 */
export default ormOptions(loadConfig());
