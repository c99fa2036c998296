import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { openDatabase } from '../src/database';
import { loadConfig } from '../src/platform/config';
import type { Tender } from '../src/tenders';
import { WebhookDelivery, WebhookDeliveryStatus } from '../src/webhooks';
import { databaseUrlFor, removeDataDir } from './helpers/database';
import { createTender, createWorld, type World } from './helpers/fixtures';
import { TEST_JWT_SECRET, createClient, graphql, requestToken, type Gateway } from './helpers/gateway';
import { freePort, spawnGateway, type GatewayProcess } from './helpers/gateway-process';
import { waitFor } from './helpers/simulator';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver';

const WEBHOOKS = {
  WEBHOOK_POLL_INTERVAL_MS: '20',
  WEBHOOK_RETRY_SCHEDULE: '50ms,100ms',
  WEBHOOK_TIMEOUT_MS: '5000',
  WEBHOOK_LEASE_MS: '6000',
  WEBHOOK_URL_ALLOW: '127.0.0.1',
};

let dataDir: string;
let orm: MikroORM;
let world: World;
let tenders: Tender[];
let receiver: WebhookReceiver;
const running: GatewayProcess[] = [];

const target = (url: string) => ({ url, em: () => orm.em.fork() }) as unknown as Gateway;

async function brokerToken(url: string): Promise<string> {
  return requestToken(target(url), await createClient(target(url), Role.BROKER, { brokerCompanyId: world.brokers[0].id }));
}

async function register(url: string, token: string): Promise<void> {
  const response = await fetch(`${url}/integration/v1/webhook-endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url(), event_types: ['tender.status_changed'] }),
  });
  expect(response.status).toBe(201);
}

async function close(url: string, token: string, tender: Tender): Promise<void> {
  const { body } = await graphql(target(url), token, 'mutation($t: ID!) { closeTender(tenderId: $t, reason: "done") { status } }', {
    t: tender.id,
  });
  expect(body.errors).toBeUndefined();
}

const rows = () => orm.em.fork().find(WebhookDelivery, {});

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tender-exchange-webhooks-'));
  orm = await openDatabase(loadConfig({ DATA_DIR: dataDir, DATABASE_URL: await databaseUrlFor(dataDir), JWT_SECRET: TEST_JWT_SECRET }));
  world = await createWorld(orm.em.fork());
  tenders = [];
  for (let i = 0; i < 12; i++) tenders.push(await createTender(orm.em.fork(), world));
  receiver = await startWebhookReceiver();
});

afterEach(async () => {
  for (const gateway of running.splice(0)) await gateway.kill();
  await receiver.close();
  await orm.close();
  await removeDataDir(dataDir);
});

describe('webhook deliveries across restarts and instances', () => {
  it('a delivery cut off by kill -9 mid-request is delivered after the restart, with the same webhook-id', async () => {
    const port = await freePort();
    const first = await spawnGateway(dataDir, port, WEBHOOKS);
    running.push(first);
    const token = await brokerToken(first.url);
    await register(first.url, token);
    // The first request hangs: the gateway is killed while it waits for the answer.
    receiver.answer((_path, n) => (n === 1 ? { status: 200, delayMs: 60_000 } : { status: 204 }));
    await close(first.url, token, tenders[0]);
    await waitFor('the first attempt to arrive', async () => receiver.received().length === 1);
    await first.kill();
    expect((await rows())[0].status).toBe(WebhookDeliveryStatus.PENDING);

    running.push(await spawnGateway(dataDir, port, WEBHOOKS));
    const delivered = await waitFor(
      'the delivery after the restart',
      async () => {
        const [row] = await rows();
        return row.status === WebhookDeliveryStatus.DELIVERED && row;
      },
      20_000,
    );
    const [cut, again] = receiver.received();
    expect(again.headers['webhook-id']).toBe(cut.headers['webhook-id']);
    expect(again.event).toEqual(cut.event);
    expect(delivered.attempts).toBe(1);
    expect(await rows()).toHaveLength(1);
  });

  it('an event committed just before kill -9 is delivered by the next start', async () => {
    const port = await freePort();
    const first = await spawnGateway(dataDir, port, { ...WEBHOOKS, WEBHOOK_POLL_INTERVAL_MS: '3600000' });
    running.push(first);
    const token = await brokerToken(first.url);
    await register(first.url, token);
    await close(first.url, token, tenders[0]);
    // Committed with the close, not yet attempted (the first start polls once an hour).
    expect((await rows())[0]).toMatchObject({ status: WebhookDeliveryStatus.PENDING, attempts: 0 });
    await first.kill();
    running.push(await spawnGateway(dataDir, port, WEBHOOKS));
    await waitFor('the delivery after the restart', async () => (await rows())[0].status === WebhookDeliveryStatus.DELIVERED, 20_000);
    expect(receiver.received()).toHaveLength(1);
  });

  it('two instances on one database deliver every event, each once', async () => {
    const [a, b] = [await spawnGateway(dataDir, await freePort(), WEBHOOKS), await spawnGateway(dataDir, await freePort(), WEBHOOKS)];
    running.push(a, b);
    const tokenA = await brokerToken(a.url);
    const tokenB = await brokerToken(b.url);
    await register(a.url, tokenA);
    await Promise.all(tenders.map((tender, i) => close(i % 2 === 0 ? a.url : b.url, i % 2 === 0 ? tokenA : tokenB, tender)));
    await waitFor(
      'every delivery',
      async () => (await rows()).every((row) => row.status === WebhookDeliveryStatus.DELIVERED) && (await rows()).length === tenders.length,
      20_000,
    );
    const ids = receiver.received().map(({ headers }) => headers['webhook-id']);
    expect(new Set(ids).size).toBe(tenders.length);
    expect(ids).toHaveLength(tenders.length);
    expect(new Set(receiver.received().map(({ event }) => event.data.tender_id))).toEqual(new Set(tenders.map((tender) => tender.id)));
  });
});
