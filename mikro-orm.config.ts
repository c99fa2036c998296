import 'reflect-metadata';
import { loadConfig } from './src/config';
import { ormOptions } from './src/db/orm-options';

/** The ORM configuration for the configured database, as the application and the CLI use it. */
export default ormOptions(loadConfig());
