import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MikroORM } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { ApiClient } from '../src/auth/api-client.entity';
import { openDatabase } from '../src/database';
import { loadConfig } from '../src/platform/config';
import { noticeDeadline } from '../src/quotes/renewals/notice-deadline';
import { RenewalType, Tender, TenderStatus } from '../src/tenders';
import { WebhookDelivery, WebhookEndpoint, WebhookEventType } from '../src/webhooks';
import { newWebhookSecret } from '../src/webhooks/webhook-endpoint.service';
import { databaseUrlFor, removeDataDir } from './helpers/database';
import { createWorld } from './helpers/fixtures';
import { TEST_JWT_SECRET, createClient, type Gateway } from './helpers/gateway';
import { freePort, spawnGateway, type GatewayProcess } from './helpers/gateway-process';
import { waitFor } from './helpers/simulator';

/**
 * Issue 42, "once per tender after a restart in the middle of a sweep": a gateway killed (SIGKILL) while its start's
 * renewal sweep is half way through leaves every tender either swept with its reminders raised or still due; the
 * restarted gateway and a second instance beside it raise the rest, and every tender's reminders reach its broker once.
 */

const TENDERS = 300;
const DAY_MS = 86_400_000;

let dataDir: string;
let orm: MikroORM;
const processes: GatewayProcess[] = [];
let receiver: Server | undefined;
/** What the broker's webhook receiver got: each event's `webhook-id` by `tender id|event type` (retries repeat an id). */
const received = new Map<string, Set<string>>();

/** A real webhook receiver on loopback: it answers 204 and notes each event. */
async function startReceiver(): Promise<string> {
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const event = JSON.parse(body) as { type: string; data: { tender_id: string } };
      const key = `${event.data.tender_id}|${event.type}`;
      received.set(key, (received.get(key) ?? new Set()).add(String(request.headers['webhook-id'])));
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/renewals`;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tender-exchange-renewal-restart-'));
  orm = await openDatabase(loadConfig({ DATA_DIR: dataDir, DATABASE_URL: await databaseUrlFor(dataDir), JWT_SECRET: TEST_JWT_SECRET }));
}, 60_000);

afterAll(async () => {
  for (const gateway of processes) await gateway.kill();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve) ?? resolve(undefined));
  await orm?.close();
  await removeDataDir(dataDir);
});

/** Contracts whose notice deadline is in ten days (real time: the processes run on the system clock), all due now. */
async function contractsDueNow(receiverUrl: string): Promise<string> {
  const em = orm.em.fork();
  const world = await createWorld(em);
  const now = Date.now();
  // Last day: the deadline (one month's notice) comes ten days from now, so RENEWAL_DUE and APPROACHING are both due.
  const lastDay = new Date(now + 10 * DAY_MS + 31 * DAY_MS).toISOString().slice(0, 10);
  for (let i = 0; i < TENDERS; i += 1) {
    em.create(Tender, {
      product: 'Cyber Protect',
      status: TenderStatus.SUCCESSFUL,
      taxRate: 0.19,
      lineOfBusiness: world.lines.cyber,
      customer: world.customer,
      brokerCompany: world.brokers[0],
      personInCharge: world.people[0],
      awardedInsurer: world.insurers[0],
      changesMetadata: {},
      policyPeriodStart: '2026-01-01',
      policyPeriodEnd: lastDay,
      renewalType: RenewalType.EXPIRING,
      noticePeriodMonths: 1,
      renewalPeriodEnd: lastDay,
      noticeDeadline: noticeDeadline(lastDay, 1),
      renewalReminders: 0,
      renewalSweepAt: new Date(now),
      createdAt: new Date(now),
      updatedAt: new Date(now),
    });
    if (i % 500 === 499) await em.flush();
  }
  await em.flush();
  // The broker's endpoint for the reminders: the test's receiver.
  const { appId } = await createClient({ em: () => orm.em.fork() } as unknown as Gateway, Role.BROKER, {
    brokerCompanyId: world.brokers[0].id,
  });
  const owner = await em.findOneOrFail(ApiClient, { appId });
  em.create(WebhookEndpoint, {
    owner,
    url: receiverUrl,
    eventTypes: [WebhookEventType.RENEWAL_DUE, WebhookEventType.NOTICE_DEADLINE_APPROACHING],
    secret: newWebhookSecret(),
  });
  await em.flush();
  return world.brokers[0].id;
}

const swept = () => orm.em.fork().count(Tender, { renewalReminders: 2 });

/** Each tender's reminders as recorded for its broker: `tender id|event type` for every delivery row. */
async function deliveries(): Promise<string[]> {
  const rows = await orm.em.fork().find(WebhookDelivery, {
    eventType: { $in: [WebhookEventType.RENEWAL_DUE, WebhookEventType.NOTICE_DEADLINE_APPROACHING] },
  });
  return rows.map((row) => `${(JSON.parse(row.payload) as { data: { tender_id: string } }).data.tender_id}|${row.eventType}`);
}

describe('the renewal sweep, killed half way', () => {
  it('leaves each tender swept with its reminders or still due, and after a restart beside a second instance every tender’s reminders reach the broker once', async () => {
    await contractsDueNow(await startReceiver());
    // Long periods: only the sweep at each start runs.
    const env = { RENEWAL_SWEEP_MS: String(DAY_MS), WEBHOOK_URL_ALLOW: '127.0.0.1', WEBHOOK_POLL_INTERVAL_MS: '20' };
    const port = await freePort();
    let child: ChildProcess | undefined;
    const starting = spawnGateway(dataDir, port, env, { onSpawn: (spawned) => (child = spawned) }).then(
      (gateway) => processes.push(gateway),
      () => undefined, // killed before it was healthy
    );
    // Killed as soon as the sweep at its start has swept a tender (it sweeps before the gateway listens).
    const deadline = Date.now() + 90_000;
    while ((await swept()) === 0) {
      if (Date.now() > deadline) throw new Error('the sweep did not start');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    child!.kill('SIGKILL');
    await new Promise<void>((resolve) =>
      child!.exitCode !== null || child!.signalCode !== null ? resolve() : child!.once('exit', () => resolve()),
    );
    await starting;
    processes.splice(0);

    // Killed in the middle: some tenders swept, not all; each swept one has both its reminders recorded, no other any.
    const done = await swept();
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(TENDERS);
    expect(await orm.em.fork().count(Tender, { renewalReminders: { $nin: [0, 2] } })).toBe(0);
    expect(await deliveries()).toHaveLength(2 * done);

    // Restarted, with a second instance on the same database: the rest is swept, and every tender's two reminders
    // reach the broker, each as one event (a delivery cut off by the kill may come again, with the same webhook-id).
    const [again, other] = await Promise.all([spawnGateway(dataDir, port, env), spawnGateway(dataDir, await freePort(), env)]);
    processes.push(again, other);
    await waitFor('every reminder at the receiver', async () => received.size === 2 * TENDERS, 120_000);
    expect([...received.values()].filter((ids) => ids.size !== 1)).toEqual([]);
    expect(await deliveries()).toHaveLength(2 * TENDERS);
    expect(await swept()).toBe(TENDERS);
  }, 300_000);
});
