import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrationDrift, openDatabase } from '../src/database';
import { schemaDrift } from '../src/platform/db/migration-check';
import { databaseUrlFor, removeDataDir, SERVER_URL } from './helpers/database';

describe('entities and migrations', () => {
  it('agree: a fresh database given every migration needs no further change for the entities', async () => {
    expect(await migrationDrift({ databaseUrl: SERVER_URL ?? join(tmpdir(), 'unused.sqlite') })).toEqual([]);
  });

  it('a schema that lacks what an entity declares (an index) is reported with the statement that would add it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tender-exchange-drift-'));
    const orm = await openDatabase({ databaseUrl: await databaseUrlFor(dataDir) });
    try {
      await orm.em.getConnection().execute('drop index webhook_replay_client_idx');
      const drift = await schemaDrift(orm);
      expect(drift).toHaveLength(1);
      expect(drift[0]).toMatch(/^create index .webhook_replay_client_idx. on .webhook_replay. \(.client_id., .requested_at.\);$/);
    } finally {
      await orm.close();
      await removeDataDir(dataDir);
    }
  });
});
