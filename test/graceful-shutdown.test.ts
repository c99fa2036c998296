import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { openDatabase } from '../src/database';
import { loadConfig } from '../src/platform/config';
import { QuoteRequest } from '../src/quotes';
import { WebhookDelivery } from '../src/webhooks';
import { databaseUrlFor, removeDataDir } from './helpers/database';
import { createTender, createWorld } from './helpers/fixtures';
import { TEST_JWT_SECRET, createClient, graphql, requestToken, type Gateway } from './helpers/gateway';
import { buildProduction, freePort, processEnv, spawnGateway, type GatewayProcess } from './helpers/gateway-process';
import { startSimulatedInsurers, waitFor, type SimulatedInsurers } from './helpers/simulator';

/** What production requires beyond spawnGateway's defaults: the real NODE_ENV, and the simulator's loopback address listed. */
const PRODUCTION_ENV = { NODE_ENV: 'production', INSURER_URL_ALLOW: '127.0.0.1', QUOTE_TIMEOUT_MS: '4000', QUOTE_LEASE_MS: '60000' };

let dataDir: string;
let orm: MikroORM;
let port: number;
let gateway: GatewayProcess | undefined;
let sims: SimulatedInsurers | undefined;

const target = () => ({ url: `http://127.0.0.1:${port}`, em: () => orm.em.fork() }) as unknown as Gateway;

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tender-exchange-shutdown-'));
  port = await freePort();
  orm = await openDatabase(loadConfig({ DATA_DIR: dataDir, DATABASE_URL: await databaseUrlFor(dataDir), JWT_SECRET: TEST_JWT_SECRET }));
});

afterEach(async () => {
  await gateway?.kill();
  gateway = undefined;
  await sims?.close();
  sims = undefined;
  await orm.close();
  await removeDataDir(dataDir);
});

/** A POST whose headers and first half of the body are sent now, the rest when asked: a request in flight. */
function trickledPost(path: string, token: string, body: string): { finish(): void; response: Promise<{ status: number; text: string }> } {
  let req: ClientRequest;
  const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req = request(`${target().url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}` },
    });
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
      res.on('error', reject);
    });
    req.flushHeaders();
    req.write(body.slice(0, body.length / 2));
  });
  // Awaited later: a reset before then must fail the test there, not as an unhandled rejection.
  response.catch(() => undefined);
  return { finish: () => req.end(body.slice(body.length / 2)), response };
}

/** Whether a new TCP connection to the gateway's port is refused. */
const connectionRefused = () =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });

const leased = async () =>
  (await orm.em.fork().count(QuoteRequest, { leaseOwner: { $ne: null } })) +
  (await orm.em.fork().count(WebhookDelivery, { leaseOwner: { $ne: null } }));

describe('graceful shutdown of the production start', () => {
  it('SIGTERM with NODE_ENV=production answers the request in flight in full, refuses new connections, releases the outbox leases and exits 0', async () => {
    await buildProduction();
    const world = await createWorld(orm.em.fork());
    const tender = await createTender(orm.em.fork(), world);
    // The insurer acknowledges after 1.5 s: the dispatcher holds a lease on the quote request while SIGTERM arrives.
    sims = await startSimulatedInsurers(target(), [{ name: 'Anchor Insurance', behaviour: 'slow' }]);
    gateway = await spawnGateway(dataDir, port, PRODUCTION_ENV, { production: true });
    const token = await requestToken(target(), await createClient(target(), Role.BROKER, { brokerCompanyId: world.brokers[0].id }));
    const requested = await graphql(target(), token, 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }', {
      input: {
        tenderId: tender.id,
        insurerIds: [sims.insurers[0].id],
        limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }],
        riskInformation: {},
      },
    });
    expect(requested.body.errors).toBeUndefined();
    await waitFor('the insurer to receive the quote request', async () => sims!.simulator.stats(sims!.slugs[0]).posts === 1);

    const inFlight = trickledPost('/graphql', token, JSON.stringify({ query: `{ tender(id: "${tender.id}") { id } }` }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const exited = gateway.terminate();
    gateway = undefined;
    // Stops accepting at once, while the request in flight is still being sent.
    await waitFor('new connections to be refused', connectionRefused);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    inFlight.finish();
    const answer = await inFlight.response;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ data: { tender: { id: tender.id } } });

    expect(await exited).toBe(0);
    // What a restart finds: the quote request the dispatcher had in hand is acknowledged and not leased, so the next
    // start need not wait for a lease to run out.
    expect(await leased()).toBe(0);
    expect((await orm.em.fork().findOneOrFail(QuoteRequest, { tender: tender.id })).status).toBe('PROCESSING');
    gateway = await spawnGateway(dataDir, port, PRODUCTION_ENV, { production: true });
    expect((await fetch(`${target().url}/readyz`)).status).toBe(200);
  }, 120_000);

  it('a request still unfinished after SHUTDOWN_GRACE_MS is cut off, and the process still exits 0 soon after', async () => {
    await buildProduction();
    await createWorld(orm.em.fork());
    gateway = await spawnGateway(dataDir, port, { ...PRODUCTION_ENV, SHUTDOWN_GRACE_MS: '1000' }, { production: true });
    const token = await requestToken(target(), await createClient(target(), Role.INTERNAL));
    const neverFinished = trickledPost('/graphql', token, JSON.stringify({ query: '{ __typename }' }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const signalled = Date.now();
    const exitCode = await gateway.terminate();
    gateway = undefined;
    expect(exitCode).toBe(0);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - signalled).toBeLessThan(8000);
    await expect(neverFinished.response).rejects.toThrow();
  }, 120_000);
});

/** The processes below `pid`, from /proc (Linux). */
function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const child of parents.get(parent) ?? []) {
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

const running = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
};

describe('the npm start scripts', () => {
  it.each([
    ['npm start', ['start']],
    ['npm run start:prod', ['run', 'start:prod']],
  ])(
    'SIGTERM to `%s` stops the gateway with it',
    async (_name, args) => {
      if (args[1] === 'start:prod') await buildProduction();
      const npm: ChildProcess = spawn('npm', args, {
        env: { ...process.env, ...(await processEnv(dataDir, port)) },
        stdio: 'ignore',
      });
      const npmExited = new Promise((resolve) => npm.once('exit', resolve));
      let started: number[] = [];
      try {
        await waitFor(
          'the gateway to answer',
          () =>
            fetch(`${target().url}/healthz`).then(
              (r) => r.ok,
              () => false,
            ),
          60_000,
        );
        started = descendants(npm.pid!);
        expect(started.length).toBeGreaterThan(0);
        npm.kill('SIGTERM');
        await npmExited;
        await waitFor('every process npm started to exit', async () => started.every((pid) => !running(pid)));
        expect(await connectionRefused()).toBe(true);
      } finally {
        for (const pid of started) if (running(pid)) process.kill(pid, 'SIGKILL');
        if (npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
      }
    },
    120_000,
  );
});
