import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/platform/config';
import { openDatabase } from '../src/database';
import { Tender, TenderInvitation, ALL_STATUSES } from '../src/tenders';
import { cli as runCli, spawnCli } from './helpers/cli';
import { dropDatabaseFor, databaseUrlFor } from './helpers/database';
import { getJson, requestToken, startGateway, TEST_JWT_SECRET } from './helpers/gateway';
import { createTender, createWorld } from './helpers/fixtures';
import { waitFor } from './helpers/simulator';

const folders: string[] = [];

function freshFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'tender-exchange-cli-'));
  folders.push(folder);
  return folder;
}

/** The CLI's environment on the database in `folder`. */
async function cliEnv(folder: string) {
  return { DATA_DIR: folder, DATABASE_URL: await databaseUrlFor(folder), JWT_SECRET: TEST_JWT_SECRET };
}

/** `npm run cli -- ...` against the database in `folder`, in the test process (the same program main.ts runs). */
async function cli(folder: string, ...args: string[]) {
  return runCli(await cliEnv(folder), ...args);
}

/** `npm run cli -- ...` as its own process, as an operator runs it: for the end-to-end cases (exit codes, streams). */
async function spawned(folder: string, ...args: string[]) {
  return spawnCli(await cliEnv(folder), ...args);
}

async function tenderRows(folder: string) {
  const orm = await openDatabase(loadConfig({ DATABASE_URL: await databaseUrlFor(folder), DATA_DIR: folder, JWT_SECRET: TEST_JWT_SECRET }));
  try {
    const em = orm.em.fork();
    const tenders = await em.find(Tender, {}, { orderBy: { id: 'asc' }, populate: ['customer', 'lineOfBusiness'] });
    return { tenders, invitations: await em.count(TenderInvitation) };
  } finally {
    await orm.close();
  }
}

afterAll(async () => {
  for (const folder of folders) {
    await dropDatabaseFor(folder);
    rmSync(folder, { recursive: true, force: true });
  }
});

describe('operator CLI', () => {
  it('db:migrate applies the migrations once and reports them as JSON', async () => {
    const folder = freshFolder();
    await databaseUrlFor(folder, { empty: true }); // on PostgreSQL, a database without the migrations
    const first = await spawned(folder, 'db:migrate', '--json');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).applied.length).toBeGreaterThan(0);
    const second = await cli(folder, 'db:migrate', '--json');
    expect(JSON.parse(second.stdout)).toEqual({ applied: [] });
  }, 60_000); // a CLI process of its own: tens of seconds on a loaded machine

  it('insurers:create and clients:create give credentials that get a token from the gateway', async () => {
    const folder = freshFolder();
    const insurer = JSON.parse(
      (await cli(folder, 'insurers:create', '--name', 'Omega Insurance', '--quote-api-url', 'http://127.0.0.1:4100', '--json')).stdout,
    );
    expect(insurer).toMatchObject({ name: 'Omega Insurance', quote_api_url: 'http://127.0.0.1:4100' });
    const created = await cli(folder, 'clients:create', '--role', 'insurer', '--insurer', insurer.id, '--json');
    expect(created.code).toBe(0);
    const client = JSON.parse(created.stdout);
    expect(client).toMatchObject({ role: 'insurer', insurer_id: insurer.id });

    const gateway = await startGateway({ dataDir: folder });
    try {
      const token = await requestToken(gateway, { appId: client.app_id, secret: client.secret });
      expect((await getJson(gateway, '/public/v1/tenders', token)).body.metadata.count).toBe('0');
    } finally {
      await gateway.stop();
    }
  });

  it("clients:disable refuses the client's tokens within the gateway's standing bound, clients:enable lets it log in again, clients:rotate-secret replaces the secret", async () => {
    const folder = freshFolder();
    const client = JSON.parse((await cli(folder, 'clients:create', '--role', 'internal', '--json')).stdout);
    const gateway = await startGateway({ dataDir: folder });
    try {
      const token = await requestToken(gateway, { appId: client.app_id, secret: client.secret });
      const disabled = await cli(folder, 'clients:disable', client.app_id, '--json');
      expect(disabled.code).toBe(0);
      expect(JSON.parse(disabled.stdout)).toMatchObject({ app_id: client.app_id, disabled_at: expect.any(String) });
      // The CLI is a process of its own: the gateway hears of it by NOTIFY (PostgreSQL) or its reconcile (1 s).
      await waitFor('the refusal', async () => (await getJson(gateway, '/api/v1/tenders', token)).status === 401, 2_000);
      await expect(requestToken(gateway, { appId: client.app_id, secret: client.secret })).rejects.toThrow(/401/);

      expect(JSON.parse((await cli(folder, 'clients:enable', client.app_id, '--json')).stdout)).toMatchObject({ disabled_at: null });
      const rotated = JSON.parse((await cli(folder, 'clients:rotate-secret', client.app_id, '--json')).stdout);
      expect(rotated).toMatchObject({ app_id: client.app_id, tokens_revoked: false });
      await expect(requestToken(gateway, { appId: client.app_id, secret: client.secret })).rejects.toThrow(/401/);
      expect(
        (await getJson(gateway, '/api/v1/tenders', await requestToken(gateway, { appId: client.app_id, secret: rotated.secret }))).status,
      ).toBe(200);
      // The token from before the client was disabled stays refused.
      expect((await getJson(gateway, '/api/v1/tenders', token)).status).toBe(401);
      expect((await cli(folder, 'clients:disable', 'no-such-client')).stderr).toMatch(/No API client has the app_id no-such-client/);
    } finally {
      await gateway.stop();
    }
  });

  it('refuses an insurer client without an insurer, naming the option, with exit code 2 (a usage error)', async () => {
    const result = await cli(freshFolder(), 'clients:create', '--role', 'insurer');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/insurerId: required for role insurer/);
    const badRole = await cli(freshFolder(), 'clients:create', '--role', 'superuser');
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toMatch(/Allowed choices are insurer, broker, internal, analyst/);
  });

  it('--version prints the version of package.json; an unknown command or option exits 2', async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(await cli(freshFolder(), '--version')).toMatchObject({ code: 0, stdout: `${version}\n` });
    expect((await spawned(freshFolder(), 'no-such-command')).code).toBe(2);
    expect((await cli(freshFolder(), 'no-such-command')).code).toBe(2);
    expect((await cli(freshFolder(), 'db:migrate', '--no-such-option')).code).toBe(2);
  }, 60_000); // a CLI process of its own: tens of seconds on a loaded machine

  it('with --json, errors are one JSON line on stderr too, usage errors and refused input alike', async () => {
    const usage = await cli(freshFolder(), 'clients:create', '--role', 'superuser', '--json');
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stderr)).toEqual({
      error: { code: 'USAGE_ERROR', message: expect.stringMatching(/Allowed choices are insurer/), errors: [] },
    });
    const refused = await cli(freshFolder(), 'clients:create', '--role', 'insurer', '--json');
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stderr)).toEqual({
      error: {
        code: 'BAD_USER_INPUT',
        message: 'The API client is invalid',
        errors: [{ parameter: 'insurerId', message: 'required for role insurer' }],
      },
    });
  });

  it('seed --now outside the timestamp rule (year 0, no offset, year 0002) is refused naming the option, and nothing is seeded', async () => {
    const folder = freshFolder();
    for (const now of ['0000-06-01T00:00:00Z', '2026-06-01T00:00:00', '0002-06-01T00:00:00Z']) {
      const result = await cli(folder, 'seed', '--tenders', '5', '--now', now);
      expect(result.code, now).not.toBe(0);
      expect(result.stderr, now).toMatch(
        /option '--now <timestamp>' argument .* is invalid\. expected an ISO 8601 timestamp .*years 0001–9999/,
      );
    }
    expect((await tenderRows(folder)).tenders).toHaveLength(0);
  });

  it('seed is deterministic and realistic: every status, several lines of business, invitations, empty address fields', async () => {
    const [a, b] = [freshFolder(), freshFolder()];
    const seedArgs = ['seed', '--tenders', '400', '--seed', '5', '--now', '2026-06-01T00:00:00.000Z', '--json'];
    const seededA = await cli(a, ...seedArgs);
    expect(seededA.code).toBe(0);
    expect(JSON.parse(seededA.stdout).tenders).toBe(400);
    await cli(b, ...seedArgs);
    const [rowsA, rowsB] = [await tenderRows(a), await tenderRows(b)];
    const plain = (tenders: Tender[]) =>
      tenders.map((t) => ({
        id: t.id,
        status: t.status,
        product: t.product,
        createdAt: t.createdAt.toISOString(),
        customer: t.customer.name,
      }));
    expect(plain(rowsA.tenders)).toEqual(plain(rowsB.tenders));

    const { tenders, invitations } = rowsA;
    expect(tenders).toHaveLength(400);
    expect(new Set(tenders.map((t) => t.status))).toEqual(new Set(ALL_STATUSES));
    expect(new Set(tenders.map((t) => t.lineOfBusiness.name)).size).toBeGreaterThan(3);
    expect(invitations).toBeGreaterThanOrEqual(400);
    expect(tenders.some((t) => t.customer.address.houseNumber === '')).toBe(true);
    for (const tender of tenders) {
      expect(tender.changesMetadata.status_changed_to_quotes_available).toBe(tender.createdAt.toISOString());
      expect(tender.changesMetadata[`status_changed_to_${tender.status.toLowerCase()}`]).toBeDefined();
      expect(tender.updatedAt.getTime()).toBeGreaterThanOrEqual(tender.createdAt.getTime());
    }
  });

  it('seeding the same seed into the same database again is refused instead of duplicating', async () => {
    const folder = freshFolder();
    await cli(folder, 'seed', '--tenders', '10', '--seed', '3');
    const again = await cli(folder, 'seed', '--tenders', '10', '--seed', '3');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/CONFLICT: The data of seed 3 is present already/);
    expect((await tenderRows(folder)).tenders).toHaveLength(10);
  });

  it('customers:export writes everything held about a customer as one JSON document, streaming past one part; an unknown customer exits 2', async () => {
    const folder = freshFolder();
    const orm = await openDatabase(
      loadConfig({ DATABASE_URL: await databaseUrlFor(folder), DATA_DIR: folder, JWT_SECRET: TEST_JWT_SECRET }),
    );
    let customerId: string;
    try {
      const em = orm.em.fork();
      const world = await createWorld(em);
      // One more than a part holds (LIMITS.exportTenders): the CLI writes both parts into one document.
      const first = await createTender(em, world);
      for (let i = 1; i < 201; i++)
        em.create(Tender, {
          product: first.product,
          status: first.status,
          taxRate: first.taxRate,
          lineOfBusiness: first.lineOfBusiness,
          customer: world.customer,
          brokerCompany: first.brokerCompany,
          personInCharge: first.personInCharge,
          changesMetadata: first.changesMetadata,
          createdAt: new Date(first.createdAt.getTime() + i),
          updatedAt: first.updatedAt,
        });
      await em.flush();
      customerId = world.customer.id;
    } finally {
      await orm.close();
    }
    // Its own process: the document streams through a real pipe, waiting on its buffer.
    const exported = await spawned(folder, 'customers:export', customerId);
    expect(exported.code, exported.stderr).toBe(0);
    const document = JSON.parse(exported.stdout);
    expect(document.customer).toMatchObject({ _id: customerId, name: 'Acme GmbH' });
    expect(document.tenders_total).toBe(201);
    expect(document.tenders).toHaveLength(201);
    expect(new Set(document.tenders.map((tender: { _id: string }) => tender._id)).size).toBe(201);
    expect(document.tenders[0]).toMatchObject({ person_in_charge: { email: 'person0@broker.example' }, history: [], quote_requests: [] });
    expect(document.access_log_complete).toBe(true);

    const unknown = await cli(folder, 'customers:export', 'no-such-customer', '--json');
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stderr).error.code).toBe('NOT_FOUND');
  }, 60_000); // a CLI process of its own: tens of seconds on a loaded machine
});

describe('customers:erase', () => {
  it("erases the customer's personal data, erases again what reached it since when asked again, and refuses misuse with exit code 2", async () => {
    const folder = freshFolder();
    const orm = await openDatabase(
      loadConfig({ DATABASE_URL: await databaseUrlFor(folder), DATA_DIR: folder, JWT_SECRET: TEST_JWT_SECRET }),
    );
    let customerId: string;
    let tenderId: string;
    try {
      const world = await createWorld(orm.em.fork());
      customerId = world.customer.id;
      tenderId = (await createTender(orm.em.fork(), world)).id;
    } finally {
      await orm.close();
    }

    const missingReason = await cli(folder, 'customers:erase', customerId, '--json');
    expect(missingReason.code).toBe(2);
    const unknown = await cli(folder, 'customers:erase', 'no-such-customer', '--reason', 'Ticket 7', '--json');
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stderr).error.code).toBe('NOT_FOUND');
    const naming = await cli(folder, 'customers:erase', customerId, '--reason', 'ACME GmbH asked', '--json');
    expect(naming.code).toBe(2);
    expect(JSON.parse(naming.stderr).error.errors).toEqual([
      { parameter: 'reason', message: 'must not name the customer: it is kept after the erasure' },
    ]);

    const erased = await cli(folder, 'customers:erase', customerId, '--reason', 'Ticket 7', '--json');
    expect(erased.code).toBe(0);
    const first = JSON.parse(erased.stdout);
    expect(first).toMatchObject({ customer_id: customerId, already_erased: false, tenders: 1, documents: 0, persons: 1 });
    const again = await cli(folder, 'customers:erase', customerId, '--reason', 'Ticket 8');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(
      `customer ${customerId} was erased before; erased again: 1 tenders kept without personal data, 0 documents deleted, 1 persons in charge erased`,
    );

    const { tenders } = await tenderRows(folder);
    expect(tenders.map((tender) => [tender.id, tender.customer.name, tender.erasedAt?.toISOString()])).toEqual([
      [tenderId, '', first.erased_at],
    ]);
  });
});
