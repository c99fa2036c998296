import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { openDatabase } from '../src/database';
import { loadConfig } from '../src/platform/config';
import { QuoteOption, QuoteRequest, QuoteRequestStatus } from '../src/quotes';
import type { Tender } from '../src/tenders';
import { SERVER_URL, databaseUrlFor, removeDataDir } from './helpers/database';
import { createTender, createWorld } from './helpers/fixtures';
import { TEST_JWT_SECRET, createClient, getJson, graphql, requestToken, type Gateway } from './helpers/gateway';
import { freePort, spawnGateway, type GatewayProcess } from './helpers/gateway-process';
import { startPgBouncer, type PgBouncer } from './helpers/pgbouncer';
import { startSimulatedInsurers, waitFor, type SimulatedInsurers } from './helpers/simulator';

/**
 * PgBouncer in transaction pooling in front of PostgreSQL (docs/operations.md, "Past one machine"): every statement
 * goes through it, the token standing's LISTEN goes to PostgreSQL directly (DATABASE_LISTEN_URL). On SQLite there is
 * no pooler and no LISTEN: the file checks that a gateway on SQLite refuses a DATABASE_LISTEN_URL rather than ignore it.
 */
let dataDir: string;
let orm: MikroORM;

if (SERVER_URL) {
  const instances: GatewayProcess[] = [];
  let sims: SimulatedInsurers | undefined;
  let pgbouncer: PgBouncer;
  let directUrl: string;
  let tender: Tender;
  let brokerCompanyId: string;
  const target = (url: string) => ({ url, em: () => orm.em.fork() }) as unknown as Gateway;
  /** A minute: only NOTIFY, heard on the direct LISTEN connection, can bring a revocation within the bound. */
  const RECONCILE_MS = 60_000;
  /** The documented bound across instances on PostgreSQL (test/multi-instance.test.ts). */
  const STANDING_BOUND_MS = 1_000;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tender-exchange-pgbouncer-'));
    directUrl = await databaseUrlFor(dataDir);
    orm = await openDatabase(loadConfig({ DATA_DIR: dataDir, DATABASE_URL: directUrl, JWT_SECRET: TEST_JWT_SECRET }));
    const world = await createWorld(orm.em.fork());
    brokerCompanyId = world.brokers[0].id;
    tender = await createTender(orm.em.fork(), world);
    pgbouncer = await startPgBouncer(directUrl);
    const [portA, portB] = [await freePort(), await freePort()];
    // The insurers call back instance B; the broker asks for quotes at instance A.
    sims = await startSimulatedInsurers(target(`http://127.0.0.1:${portB}`), [{ name: 'Anchor Insurance' }, { name: 'Beacon Insurance' }]);
    const env = {
      DATABASE_URL: pgbouncer.pooled(directUrl),
      DATABASE_LISTEN_URL: directUrl,
      TOKEN_STANDING_RECONCILE_MS: String(RECONCILE_MS),
      QUOTE_TIMEOUT_MS: '10000',
      QUOTE_LEASE_MS: '30000',
    };
    instances.push(await spawnGateway(dataDir, portA, env), await spawnGateway(dataDir, portB, env));
  }, 120_000);

  afterAll(async () => {
    for (const instance of instances) await instance.kill();
    await sims?.close();
    await pgbouncer?.stop();
    await orm?.close();
    await removeDataDir(dataDir);
  });

  describe('two gateway instances whose statements go through PgBouncer in transaction pooling', () => {
    it('answer reads and carry a quote round from one instance to the other, every statement through the pooler', async () => {
      const [a, b] = instances.map((instance) => target(instance.url));
      const token = await requestToken(a, await createClient(a, Role.BROKER, { brokerCompanyId }));
      for (const instance of [a, b]) {
        const page = await getJson(instance, '/api/v1/tenders?limit=5', token);
        expect(page.status).toBe(200);
        expect(JSON.stringify(page.body)).toContain(tender.id);
      }
      const insurerIds = sims!.insurers.map((insurer) => insurer.id);
      const { body } = await graphql(a, token, 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }', {
        input: { tenderId: tender.id, insurerIds, limits: [{ insuranceSum: 500_000, deductible: 0 }], riskInformation: {} },
      });
      expect(body.errors).toBeUndefined();
      await waitFor(
        'both quotes',
        async () => (await orm.em.fork().count(QuoteRequest, { status: QuoteRequestStatus.QUOTED })) === 2,
        60_000,
      );
      for (const slug of sims!.slugs)
        expect(sims!.simulator.stats(slug)).toMatchObject({ posts: 1, quotes: 1, callbacks: 1, callbackFailures: 0 });
      expect(await orm.em.fork().count(QuoteOption)).toBe(2);
      // The instances' pools are PgBouncer's clients: nothing reached the database past it but the LISTEN connections.
      expect(await pgbouncer.clientsOf(new URL(directUrl).pathname.slice(1))).toBeGreaterThanOrEqual(2);
    }, 90_000);

    it('refuse a token at the other instance within the bound once it was revoked at one, heard on the direct LISTEN connection', async () => {
      const [a, b] = instances.map((instance) => target(instance.url));
      const token = await requestToken(a, await createClient(a, Role.BROKER, { brokerCompanyId }));
      expect((await getJson(b, '/api/v1/tenders?limit=1', token)).status).toBe(200);
      const revoked = await fetch(`${a.url}/auth/token-revoke`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
      expect(revoked.status).toBe(200);
      expect((await getJson(a, '/api/v1/tenders?limit=1', token)).status).toBe(401);
      const since = Date.now();
      const refused = await waitFor('the refusal', async () => {
        const answer = await getJson(b, '/api/v1/tenders?limit=1', token);
        return answer.status === 401 && answer;
      });
      expect(Date.now() - since).toBeLessThanOrEqual(STANDING_BOUND_MS);
      expect(refused.body.detail).toBe('The access token has been revoked');
    });
  });
} else {
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'tender-exchange-pgbouncer-'));
  });

  afterAll(() => removeDataDir(dataDir));

  describe('a gateway on SQLite, where there is no pooler and no LISTEN', () => {
    it('refuses to start with a DATABASE_LISTEN_URL, naming the setting', async () => {
      const start = spawnGateway(dataDir, await freePort(), { DATABASE_LISTEN_URL: 'postgres://postgres@127.0.0.1:5432/test' });
      await expect(start).rejects.toThrow('DATABASE_LISTEN_URL is for a PostgreSQL DATABASE_URL; SQLite has no LISTEN (leave it unset)');
    });
  });
}
