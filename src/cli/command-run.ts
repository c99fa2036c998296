import type { MikroORM } from '@mikro-orm/core';
import type { Config } from '../platform/config';

/** What a file of commands gets of the run of the CLI it is added to (program.ts): settings, database, output. */
export interface CommandRun {
  settings(): Config;
  /** Opens the migrated database for one command and closes it afterwards. */
  withDatabase<T>(work: (orm: MikroORM) => Promise<T>): Promise<T>;
  logLine(...data: unknown[]): void;
  errorLine(...data: unknown[]): void;
  /** A failed command's reason on stderr, as text or (with --json) one JSON line. */
  printError(error: unknown): void;
  /** The exit code the run ends with, unless an error escapes the command. */
  exit(code: number): void;
}
