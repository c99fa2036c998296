import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../platform/config';

/**
 * At start, outside production without JWT_SECRET: a secret generated once and kept in the data folder, so
 * tokens survive restarts. Reading the configuration never writes; this does, once, where `main` calls it.
 */
export function withJwtSecret(config: Config): Config {
  if (config.jwtSecret) return config;
  const file = join(config.dataDir, 'jwt-secret');
  if (existsSync(file)) return { ...config, jwtSecret: readFileSync(file, 'utf8').trim() };
  mkdirSync(config.dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600 });
  return { ...config, jwtSecret: secret };
}
