import 'reflect-metadata';
import { loadConfig } from './src/platform/config';
import { ormOptions } from './src/database';

/** The ORM configuration for the configured database, as the application and the CLI use it. */
export default ormOptions(loadConfig());
