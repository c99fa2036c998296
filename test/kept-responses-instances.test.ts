import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { loadConfig } from '../src/platform/config';
import { openDatabase } from '../src/database';
import { TenderStatus, type Tender } from '../src/tenders';
import { databaseUrlFor, removeDataDir } from './helpers/database';
import { createTender, createWorld, type World } from './helpers/fixtures';
import { TEST_JWT_SECRET, createClient, graphql, requestToken, type Gateway } from './helpers/gateway';
import { freePort, spawnGateway, type GatewayProcess } from './helpers/gateway-process';

/**
 * Two gateway processes on one database, each keeping answers (docs/rest-api.md#kept-answers): a write at either,
 * followed by a read at either, is never answered with the page from before the write.
 */
let dataDir: string;
let orm: MikroORM;
let world: World;
const instances: GatewayProcess[] = [];
const open: Tender[] = [];
const ROUNDS = 6;

const target = (instance: GatewayProcess) => ({ url: instance.url, em: () => orm.em.fork() }) as unknown as Gateway;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tender-exchange-kept-'));
  orm = await openDatabase(loadConfig({ DATA_DIR: dataDir, DATABASE_URL: await databaseUrlFor(dataDir), JWT_SECRET: TEST_JWT_SECRET }));
  world = await createWorld(orm.em.fork());
  for (let i = 0; i < ROUNDS; i++) open.push(await createTender(orm.em.fork(), world, { invited: [world.insurers[0]] }));
  const [portA, portB] = [await freePort(), await freePort()];
  const env = { RATE_LIMIT_PER_MINUTE: '100000' };
  instances.push(...(await Promise.all([spawnGateway(dataDir, portA, env), spawnGateway(dataDir, portB, env)])));
}, 120_000);

afterAll(async () => {
  for (const instance of instances) await instance.kill();
  await orm?.close();
  await removeDataDir(dataDir);
});

async function read(instance: GatewayProcess, path: string, token: string) {
  const response = await fetch(`${instance.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status, path).toBe(200);
  return { etag: response.headers.get('etag'), body: (await response.json()) as any };
}

const statusIn = (page: { payload: { _id: string; status: string }[] }, id: string) =>
  page.payload.find((tender) => tender._id === id)?.status;

describe('kept answers on two instances of one database', () => {
  it('never answer a read at either instance, after a write at either, with the page or tender from before the write', async () => {
    const [a, b] = instances;
    const broker = await requestToken(target(a), await createClient(target(a), Role.BROKER, { brokerCompanyId: world.brokers[0].id }));
    // A second client of the same company reads at the other instance: its answers are kept for both.
    const colleague = await requestToken(target(b), await createClient(target(b), Role.BROKER, { brokerCompanyId: world.brokers[0].id }));
    const insurer = await requestToken(target(a), await createClient(target(a), Role.INSURER, { insurerId: world.insurers[0].id }));
    const list = '/api/v1/tenders?limit=50';
    const insurerList = '/public/v1/tenders?limit=50';

    for (let round = 0; round < ROUNDS; round++) {
      const tender = open[round];
      const item = `/api/v1/tenders/${tender.id}`;
      const insurerItem = `/public/v1/tenders/${tender.id}`;
      // Every instance keeps the page and the tender as they stand (twice: the second is answered from what was kept).
      for (const instance of [a, b, a, b]) {
        for (const token of [broker, colleague]) {
          expect(statusIn((await read(instance, list, token)).body, tender.id)).toBe(TenderStatus.QUOTES_AVAILABLE);
          expect((await read(instance, item, token)).body.status).toBe(TenderStatus.QUOTES_AVAILABLE);
        }
        expect(statusIn((await read(instance, insurerList, insurer)).body, tender.id)).toBe(TenderStatus.QUOTES_AVAILABLE);
        expect((await read(instance, insurerItem, insurer)).body.status).toBe(TenderStatus.QUOTES_AVAILABLE);
      }

      // The write at one instance, the reads at once at both, the other first on odd rounds.
      const writer = round % 2 === 0 ? a : b;
      const { body } = await graphql(
        target(writer),
        broker,
        'mutation($id: ID!) { closeTender(tenderId: $id, reason: "no longer needed") { status } }',
        { id: tender.id },
      );
      expect(body.errors).toBeUndefined();
      for (const instance of round % 2 === 0 ? [b, a] : [a, b]) {
        for (const token of [colleague, broker]) {
          expect(statusIn((await read(instance, list, token)).body, tender.id), `round ${round}`).toBe(TenderStatus.CLOSED);
          expect((await read(instance, item, token)).body.status, `round ${round}`).toBe(TenderStatus.CLOSED);
        }
        // The insurer's audience was raised by the same write.
        expect(statusIn((await read(instance, insurerList, insurer)).body, tender.id), `round ${round}`).toBe(TenderStatus.CLOSED);
        expect((await read(instance, insurerItem, insurer)).body.status, `round ${round}`).toBe(TenderStatus.CLOSED);
      }
    }
  }, 120_000);
});
