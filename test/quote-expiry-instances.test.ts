import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { loadConfig } from '../src/platform/config';
import { openDatabase } from '../src/database';
import { QuoteOption, QuoteRequest, QuoteRequestStatus } from '../src/quotes';
import { WebhookDelivery, WebhookDeliveryStatus, WebhookEventType } from '../src/webhooks';
import { databaseUrlFor, removeDataDir } from './helpers/database';
import { createTender, createWorld } from './helpers/fixtures';
import { TEST_JWT_SECRET, createClient, requestToken, type Gateway } from './helpers/gateway';
import { freePort, spawnGateway, type GatewayProcess } from './helpers/gateway-process';
import { waitFor } from './helpers/simulator';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver';

/** Issue 27: expiry is exact across instances and restarts (two gateway processes on one database). */
const INTERVAL_MS = 200;
const QUOTES = 12;
const ENV = {
  QUOTE_EXPIRY_INTERVAL_MS: String(INTERVAL_MS),
  QUOTE_EXPIRY_WARNING: '1s',
  WEBHOOK_POLL_INTERVAL_MS: '50',
  // A delivery in flight on the killed instance is taken over once its lease runs out.
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_LEASE_MS: '4000',
  // Enough attempts that a loaded machine (CI runs three suites side by side) does not exhaust them.
  WEBHOOK_RETRY_SCHEDULE: '100ms,200ms,400ms,800ms,1s,1s,1s,1s',
  WEBHOOK_URL_ALLOW: '127.0.0.1',
};

let dataDir: string;
let orm: MikroORM;
let receiver: WebhookReceiver;
const instances: GatewayProcess[] = [];
const target = (url: string) => ({ url, em: () => orm.em.fork() }) as unknown as Gateway;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tender-exchange-expiry-'));
  orm = await openDatabase(loadConfig({ DATA_DIR: dataDir, DATABASE_URL: await databaseUrlFor(dataDir), JWT_SECRET: TEST_JWT_SECRET }));
  receiver = await startWebhookReceiver();
}, 60_000);

afterAll(async () => {
  for (const instance of instances) if (instance.alive()) await instance.kill();
  await receiver?.close();
  await orm?.close();
  await removeDataDir(dataDir);
});

describe('quote expiry on several instances', () => {
  it('no quote expires early and none stays QUOTED more than one interval past its validity, while an instance is killed and restarted; each is reported once', async () => {
    const em = orm.em.fork();
    const world = await createWorld(em);
    const tender = await createTender(em, world);
    const [portA, portB] = [await freePort(), await freePort()];
    instances.push(await spawnGateway(dataDir, portA, ENV), await spawnGateway(dataDir, portB, ENV));
    const gateway = target(instances[0].url);
    const broker = await requestToken(gateway, await createClient(gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id }));
    const registered = await fetch(`${gateway.url}/integration/v1/webhook-endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${broker}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url('/broker'), event_types: ['quote.expiring', 'quote.expired'] }),
    });
    expect(registered.status).toBe(201);

    // Quotes whose validity ends one after another over the next few seconds, as the dispatcher stores them.
    const start = Date.now();
    const validity = new Map<string, number>();
    for (let i = 0; i < QUOTES; i++) {
      const validUntil = new Date(start + 2000 + i * 250);
      const request = em.create(QuoteRequest, {
        tender,
        insurer: world.insurers[i % world.insurers.length],
        status: QuoteRequestStatus.QUOTED,
        limits: [{ insurance_sum: 1_000_000, deductible: 0 }],
        riskInformation: {},
        insurerReference: `EXP-${i}`,
        requestedBy: 'fixture',
        quotedAt: new Date(),
        validUntil,
      });
      em.create(QuoteOption, { quoteRequest: request, position: 0, insuranceSum: 1_000_000, deductible: 0, premium: 100 + i });
      validity.set(request.id, validUntil.getTime());
    }
    await em.flush();

    // Halfway, instance A is killed and started again; B works on throughout.
    await waitFor(
      'half of the quotes to expire',
      async () => (await orm.em.fork().count(QuoteRequest, { status: QuoteRequestStatus.EXPIRED })) >= QUOTES / 2,
      20_000,
    );
    await instances[0].kill();
    instances[0] = await spawnGateway(dataDir, portA, ENV);
    await waitFor(
      'every quote to expire',
      async () => (await orm.em.fork().count(QuoteRequest, { status: QuoteRequestStatus.EXPIRED })) === QUOTES,
      20_000,
    );

    for (const request of await orm.em.fork().find(QuoteRequest, {})) {
      const late = request.updatedAt.getTime() - validity.get(request.id)!;
      expect(late, `${request.insurerReference} expired ${late} ms after its validity`).toBeGreaterThan(0);
      // One interval, and the time a sweep and a busy machine take.
      expect(late, `${request.insurerReference} expired ${late} ms after its validity`).toBeLessThan(INTERVAL_MS + 500);
    }
    // Each expiry (and each warning) was recorded once, whichever instance swept it.
    const deliveries = await orm.em.fork().find(WebhookDelivery, {});
    const count = (type: WebhookEventType) => deliveries.filter((delivery) => delivery.eventType === type).length;
    expect([count(WebhookEventType.QUOTE_EXPIRING), count(WebhookEventType.QUOTE_EXPIRED)]).toEqual([QUOTES, QUOTES]);
    // What is still on its way, should the receiver not get every expiry: each delivery's state and last fault.
    const undelivered = async () =>
      (await orm.em.fork().find(WebhookDelivery, { status: { $ne: WebhookDeliveryStatus.DELIVERED } })).map(
        ({ eventType, status, attempts, lastError }) => ({ eventType, status, attempts, lastError }),
      );
    // Delivery is at least once: a request in flight when A was killed may arrive again, as the same event (same id).
    const expiredEvents = () => receiver.received('/broker').filter(({ event }) => event.type === 'quote.expired');
    const received = await waitFor(
      'every expiry webhook',
      async () => new Set(expiredEvents().map(({ event }) => event.data.quote_request_id)).size === QUOTES && receiver.received('/broker'),
      30_000,
    ).catch(async (error: Error) => {
      throw new Error(
        `${error.message}; received ${receiver.received('/broker').length}, not delivered: ${JSON.stringify(await undelivered())}`,
      );
    });
    const expiredIds = received.filter(({ event }) => event.type === 'quote.expired').map(({ event }) => event.data.quote_request_id);
    expect(new Set(expiredIds)).toEqual(new Set(validity.keys()));
    // One event per quote: a repeated delivery carries the first one's id.
    expect(new Set(expiredEvents().map(({ event }) => event.id)).size).toBe(QUOTES);
  }, 90_000);
});
