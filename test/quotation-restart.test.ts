import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { loadConfig } from '../src/platform/config';
import { openDatabase } from '../src/database';
import type { SimBehaviour } from '../src/insurer-sim/insurer-sim';
import { QuoteOption, QuoteRequest, QuoteRequestStatus } from '../src/quotes';
import type { Tender } from '../src/tenders';
import { databaseUrlFor, removeDataDir } from './helpers/database';
import { createTender, createWorld } from './helpers/fixtures';
import { PATIENT_RETRIES_ENV, TEST_JWT_SECRET, createClient, graphql, requestToken, type Gateway } from './helpers/gateway';
import { freePort, spawnGateway, type GatewayProcess } from './helpers/gateway-process';
import { startSimulatedInsurers, waitFor, type SimulatedInsurers } from './helpers/simulator';

let dataDir: string;
let orm: MikroORM;
let port: number;
let tender: Tender;
let sims: SimulatedInsurers;
let gateway: GatewayProcess | undefined;
let brokerBinding: { brokerCompanyId: string };

/** The gateway as the test process sees it: its address, and the same database file. */
const target = () => ({ url: `http://127.0.0.1:${port}`, em: () => orm.em.fork() }) as unknown as Gateway;

async function setUp(behaviour: SimBehaviour, env: Record<string, string> = {}) {
  sims = await startSimulatedInsurers(target(), [{ name: 'Anchor Insurance', behaviour }]);
  gateway = await spawnGateway(dataDir, port, env);
}

async function requestQuotes() {
  const token = await requestToken(target(), await createClient(target(), Role.BROKER, brokerBinding));
  const { body } = await graphql(target(), token, 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }', {
    input: {
      tenderId: tender.id,
      insurerIds: [sims.insurers[0].id],
      limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }],
      riskInformation: {},
    },
  });
  expect(body.errors).toBeUndefined();
}

const requestRow = () => orm.em.fork().findOneOrFail(QuoteRequest, { tender: tender.id });

async function restartAndExpectOneQuote() {
  gateway = await spawnGateway(dataDir, port);
  const done = await waitFor('the quote after the restart', async () => {
    const row = await requestRow();
    return row.status === QuoteRequestStatus.QUOTED && row;
  });
  // Nothing lost, nothing doubled: one request, one stored quote with its one option.
  expect(await orm.em.fork().count(QuoteRequest, { tender: tender.id })).toBe(1);
  expect(await orm.em.fork().count(QuoteOption, { quoteRequest: done.id })).toBe(1);
  expect(sims.simulator.stats(sims.slugs[0]).quotes).toBe(1);
  return done;
}

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tender-exchange-restart-'));
  port = await freePort();
  orm = await openDatabase(loadConfig({ DATA_DIR: dataDir, DATABASE_URL: await databaseUrlFor(dataDir), JWT_SECRET: TEST_JWT_SECRET }));
  const world = await createWorld(orm.em.fork());
  tender = await createTender(orm.em.fork(), world);
  brokerBinding = { brokerCompanyId: world.brokers[0].id };
});

afterEach(async () => {
  await gateway?.kill();
  gateway = undefined;
  await sims?.close();
  await orm.close();
  await removeDataDir(dataDir);
});

describe('quote requests survive a killed gateway', () => {
  it('a request queued and retrying when the gateway is killed is delivered after the restart', async () => {
    await setUp('quote', PATIENT_RETRIES_ENV);
    await sims.down();
    await requestQuotes();
    await waitFor('a failed delivery attempt', async () => (await requestRow()).attempts >= 1);
    await gateway!.kill();
    expect((await requestRow()).status).toBe('QUEUED');
    await sims.up();
    await restartAndExpectOneQuote();
  });

  it('a request killed in flight is sent again with the same Idempotency-Key and quoted once', async () => {
    await setUp('slow');
    await requestQuotes();
    await waitFor('the insurer to receive the request', async () => sims.simulator.stats(sims.slugs[0]).posts === 1);
    await gateway!.kill();
    expect((await requestRow()).status).toBe('QUEUED');
    await restartAndExpectOneQuote();
    expect(sims.simulator.stats(sims.slugs[0]).posts).toBe(2);
  });

  it('a request called back but not yet fetched is fetched after the restart, its quote stored once', async () => {
    await setUp('slow-fetch');
    await requestQuotes();
    await waitFor('the gateway to start fetching', async () => sims.simulator.stats(sims.slugs[0]).fetches === 1);
    await gateway!.kill();
    expect((await requestRow()).status).toBe('AVAILABLE');
    await restartAndExpectOneQuote();
    expect(sims.simulator.stats(sims.slugs[0]).fetches).toBe(2);
  });
});

describe('graceful shutdown', () => {
  it('SIGTERM lets the dispatcher finish the request in hand, then the process exits 0', async () => {
    // The insurer answers after 1.5 s, within this gateway's timeout.
    await setUp('slow', { QUOTE_TIMEOUT_MS: '4000', QUOTE_LEASE_MS: '8000' });
    await requestQuotes();
    await waitFor('the insurer to receive the request', async () => sims.simulator.stats(sims.slugs[0]).posts === 1);
    const exitCode = await gateway!.terminate();
    gateway = undefined;
    expect(exitCode).toBe(0);
    // The acknowledgement that arrived during the shutdown was stored, and the lease released.
    const row = await requestRow();
    expect(row.status).toBe('PROCESSING');
    expect(row.leaseOwner).toBeNull();
  });
});
