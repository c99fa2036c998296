import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/platform/config';
import { openDatabase } from '../src/database';
import { QuoteOption, QuoteRequest, QuoteRequestStatus, TrackedSubjectivity } from '../src/quotes';
import { createTender, createWorld } from './helpers/fixtures';
import { databaseUrlFor, removeDataDir } from './helpers/database';
import { TEST_JWT_SECRET } from './helpers/gateway';
import { ApiClient } from '../src/auth';
import { Role } from '../src/access';
import { postgresqlMigrations } from '../src/platform/db/migrations/postgresql';
import { sqliteMigrations } from '../src/platform/db/migrations/sqlite';
import { databaseEngine } from '../src/platform/db/orm-options';
import { WebhookDelivery, WebhookEndpoint, WebhookReplay } from '../src/webhooks';

/** The last migration before quote requests got CANCELLED and their detail columns (issue 11). */
const BEFORE_CANCELLED = 'Migration20261122200000';

let dataDir: string;
let orm: MikroORM;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tender-exchange-migrate-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: await databaseUrlFor(dataDir, { empty: true }),
    JWT_SECRET: TEST_JWT_SECRET,
  });
  orm = await openDatabase(config, { migrate: false });
  await orm.getMigrator().up({ to: BEFORE_CANCELLED });
});

afterAll(async () => {
  await orm?.close();
  await removeDataDir(dataDir);
});

describe('migrations', () => {
  it('upgrade a database that holds quote requests with options: rows kept, old reasons moved to the internal detail', async () => {
    const em = orm.em.fork();
    const world = await createWorld(em, { schemaBeforeQuoteTerms: true });
    // The schema as it stood before: no feed to raise yet.
    const tender = await createTender(em, world, { feed: false });
    const connection = em.getConnection();
    const now = new Date();
    // Written as the schema stood before: the entity already knows columns that do not exist yet.
    const insert = `insert into quote_request (id, tender_id, insurer_id, status, limits, risk_information, attempts, requested_by, created_at, updated_at, last_error, failure_reason)
      values (?, ?, ?, ?, ?, ?, 0, 'broker-1', ?, ?, ?, ?)`;
    await connection.execute(insert, ['qr-quoted', tender.id, world.insurers[0].id, 'QUOTED', '[]', '{}', now, now, null, null]);
    await connection.execute(insert, [
      'qr-failed',
      tender.id,
      world.insurers[1].id,
      'FAILED',
      '[]',
      '{}',
      now,
      now,
      'fetching the quote: insurer answered 503: <html>upstream error</html>',
      'gave up after 6 attempts fetching the quote: insurer answered 503: <html>upstream error</html>',
    ]);
    await connection.execute(insert, [
      'qr-queued',
      tender.id,
      world.insurers[2].id,
      'QUEUED',
      '[]',
      '{}',
      now,
      now,
      'sending the quotation request: no answer within 5000 ms',
      null,
    ]);
    await connection.execute(
      'insert into quote_option (id, quote_request_id, position, insurance_sum, deductible, premium) values (?, ?, 0, 1000000, 10000, 1200)',
      ['option-1', 'qr-quoted'],
    );

    await orm.getMigrator().up();

    const after = orm.em.fork();
    expect(await after.count(QuoteOption, { quoteRequest: 'qr-quoted' })).toBe(1);
    const failed = await after.findOneOrFail(QuoteRequest, { id: 'qr-failed' });
    expect(failed).toMatchObject({
      status: 'FAILED',
      lastError: 'insurer answered 503',
      failureReason: 'insurer answered 503',
      failureDetail: 'gave up after 6 attempts fetching the quote: insurer answered 503: <html>upstream error</html>',
    });
    expect(await after.findOneOrFail(QuoteRequest, { id: 'qr-queued' })).toMatchObject({
      lastError: 'insurer timed out',
      lastErrorDetail: 'sending the quotation request: no answer within 5000 ms',
    });
    // Issue 27: requests and insurers from before quote terms are API ones, with no terms; the options are kept.
    const quoted = await after.findOneOrFail(QuoteRequest, { id: 'qr-quoted' }, { populate: ['insurer', 'options'] });
    expect([quoted.source, quoted.validUntil, quoted.currency, quoted.underwriterReason, quoted.insurer.integration]).toEqual([
      'API',
      null,
      null,
      null,
      'API',
    ]);
    expect(quoted.options.getItems().map((option) => [option.premium, option.subjectivities ?? null])).toEqual([[1200, null]]);
    // The new statuses are accepted (REFERRED, EXPIRED, AWAITING_MANUAL, as CANCELLED before), and foreign keys still hold.
    await after.nativeUpdate(QuoteRequest, { id: 'qr-failed' }, { status: 'AWAITING_MANUAL' as QuoteRequest['status'] });
    await after.nativeUpdate(QuoteRequest, { id: 'qr-quoted' }, { status: 'EXPIRED' as QuoteRequest['status'] });
    await after.nativeUpdate(QuoteRequest, { id: 'qr-queued' }, { status: 'CANCELLED' as QuoteRequest['status'] });
    await expect(
      connection.execute(
        'insert into quote_option (id, quote_request_id, position, insurance_sum, deductible, premium) values (?, ?, 0, 1, 0, 1)',
        ['option-2', 'no-such-request'],
      ),
    ).rejects.toThrow();
  });
});

describe('migrations of the webhook outbox', () => {
  /** The migration that added replays (webhook_replay, webhook_delivery.replayed_at), per engine. */
  const REPLAYS = { sqlite: 'Migration20261125192034', postgresql: 'Migration20261125192043' };

  it('upgrade a database that holds webhook deliveries: rows kept as live (not replayed), and replays can be counted', async () => {
    const webhookDir = mkdtempSync(join(tmpdir(), 'tender-exchange-migrate-webhooks-'));
    const config = loadConfig({
      DATA_DIR: webhookDir,
      DATABASE_URL: await databaseUrlFor(webhookDir, { empty: true }),
      JWT_SECRET: TEST_JWT_SECRET,
    });
    const engine = databaseEngine(config.databaseUrl);
    const migrations = (engine === 'sqlite' ? sqliteMigrations : postgresqlMigrations).map(({ name }) => name);
    const before = migrations[migrations.indexOf(REPLAYS[engine]) - 1];
    const older = await openDatabase(config, { migrate: false });
    try {
      await older.getMigrator().up({ to: before });
      const connection = older.em.getConnection();
      const at = older.em.getPlatform().processDateProperty(new Date());
      await connection.execute(
        `insert into api_client (id, app_id, secret_hash, role, description, created_at, token_generation) values ('client-1', 'app-1', 'x', ?, '', ?, 0)`,
        [Role.BROKER, at],
      );
      await connection.execute(
        `insert into webhook_endpoint (id, owner_id, url, event_types, description, secret, created_at, updated_at) values ('endpoint-1', 'client-1', 'https://hooks.example/x', '["tender.status_changed"]', '', 'whsec_x', ?, ?)`,
        [at, at],
      );
      await connection.execute(
        `insert into webhook_delivery (id, endpoint_id, event_id, event_type, payload, status, attempts, next_attempt_at, created_at) values ('msg_1', 'endpoint-1', 'evt_1', 'tender.status_changed', '{}', 'PENDING', 0, ?, ?)`,
        [at, at],
      );

      await older.getMigrator().up();

      const em = older.em.fork();
      expect(await em.findOneOrFail(WebhookDelivery, { id: 'msg_1' })).toMatchObject({ status: 'PENDING', attempts: 0, replayedAt: null });
      em.create(WebhookReplay, { client: em.getReference(ApiClient, 'client-1'), endpointId: 'endpoint-1', requeued: 3 });
      await em.flush();
      expect(await em.count(WebhookReplay, { client: 'client-1' })).toBe(1);
      // Removing the client removes its replays with it.
      await em.nativeDelete(WebhookDelivery, {});
      await em.nativeDelete(WebhookEndpoint, {});
      await em.nativeDelete(ApiClient, { id: 'client-1' });
      expect(await older.em.fork().count(WebhookReplay, {})).toBe(0);
    } finally {
      await older.close();
      await removeDataDir(webhookDir);
    }
  });
});

describe('migrations of the bind gate (issue 41)', () => {
  /** The migration that made subjectivities things of their own, per engine. */
  const TRACKED = { sqlite: 'Migration20261128175728', postgresql: 'Migration20261128175741' };

  it("upgrade a database whose quotes carry subjectivities: each becomes an OPEN row of its option, in the insurer's order", async () => {
    const bindDir = mkdtempSync(join(tmpdir(), 'tender-exchange-migrate-bind-'));
    const config = loadConfig({
      DATA_DIR: bindDir,
      DATABASE_URL: await databaseUrlFor(bindDir, { empty: true }),
      JWT_SECRET: TEST_JWT_SECRET,
    });
    const engine = databaseEngine(config.databaseUrl);
    const migrations = (engine === 'sqlite' ? sqliteMigrations : postgresqlMigrations).map(({ name }) => name);
    const older = await openDatabase(config, { migrate: false });
    try {
      await older.getMigrator().up({ to: migrations[migrations.indexOf(TRACKED[engine]) - 1] });
      const em = older.em.fork();
      const world = await createWorld(em);
      const tender = await createTender(em, world);
      const request = em.create(QuoteRequest, {
        tender,
        insurer: world.insurers[0],
        status: QuoteRequestStatus.QUOTED,
        limits: [{ insurance_sum: 1000, deductible: 0 }],
        riskInformation: {},
        requestedBy: 'fixture',
        quotedAt: new Date(),
      });
      await em.flush();
      const subjectivities = [
        { text: 'Signed application', stage: 'PRE_BIND' },
        { text: 'Questionnaire in 30 days', stage: 'POST_BIND' },
      ];
      await em
        .getConnection()
        .execute(
          'insert into quote_option (id, quote_request_id, position, insurance_sum, deductible, premium, subjectivities) values (?, ?, 0, 1000, 0, 10, ?), (?, ?, 1, 1000, 0, 12, null)',
          ['option-1', request.id, JSON.stringify(subjectivities), 'option-2', request.id],
        );

      await older.getMigrator().up();

      const rows = await older.em.fork().find(TrackedSubjectivity, {}, { orderBy: { position: 'asc' }, populate: ['insurer'] });
      expect(
        rows.map((row) => [row.quoteOption.id, row.position, row.stage, row.text, row.status, row.dueAt ?? null, row.tender.id]),
      ).toEqual([
        ['option-1', 0, 'PRE_BIND', 'Signed application', 'OPEN', null, tender.id],
        ['option-1', 1, 'POST_BIND', 'Questionnaire in 30 days', 'OPEN', null, tender.id],
      ]);
      expect(rows.map((row) => row.insurer.id)).toEqual([world.insurers[0].id, world.insurers[0].id]);
      expect(rows[0].id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(rows[0].id).not.toBe(rows[1].id);
    } finally {
      await older.close();
      await removeDataDir(bindDir);
    }
  });
});
