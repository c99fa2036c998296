import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The gateway's version, package.json's, from src/ and from dist/ alike: the CLI's `--version`, `/healthz`, the
 * OpenAPI document and the GraphQL schema's description all show this one (docs/versioning.md).
 */
export const VERSION = (JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
