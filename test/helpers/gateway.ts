import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EntityManager, MikroORM } from '@mikro-orm/core';
import pino, { type Logger } from 'pino';
import { expect } from 'vitest';
import { systemClock, type Clock } from '../../src/platform/tasks/clock';
import { createApp, type App } from '../../src/api/app';
import { ApiClientService } from '../../src/auth';
import { Role } from '../../src/access';
import { loadConfig, type Config } from '../../src/platform/config';
import { openDatabase, openWorkerDatabase } from '../../src/database';
import { createHttpServer } from '../../src/api/http/server';
import { databaseUrlFor, removeDataDir } from './database';

export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';

export interface Gateway {
  url: string;
  app: App;
  config: Config;
  orm: MikroORM;
  dataDir: string;
  em(): EntityManager;
  /** Stops the server and closes the database; the data folder stays for a restart. */
  stop(): Promise<void>;
  /** stop() and remove the data folder. */
  close(): Promise<void>;
}

/** Quick retries and short timeouts, so failure paths finish within a test. */
export const FAST_DISPATCH_ENV: Record<string, string> = {
  QUOTE_TIMEOUT_MS: '1000',
  QUOTE_MAX_ATTEMPTS: '4',
  QUOTE_BACKOFF_BASE_MS: '20',
  QUOTE_BACKOFF_MAX_MS: '200',
  QUOTE_POLL_INTERVAL_MS: '50',
  QUOTE_LEASE_MS: '3000',
};

/**
 * Retries slow and many enough that a test can watch a request waiting between attempts: with the fast ones, a loaded
 * machine can spend every attempt between two looks.
 */
export const PATIENT_RETRIES_ENV: Record<string, string> = {
  QUOTE_MAX_ATTEMPTS: '30',
  QUOTE_BACKOFF_BASE_MS: '200',
  QUOTE_BACKOFF_MAX_MS: '1000',
};

/**
 * The real app on an ephemeral loopback port, over a fresh SQLite file (or the given data folder). `host: '::'`
 * listens as `npm start` does (dual stack: IPv4 clients appear as IPv4-mapped IPv6 addresses).
 */
export async function startGateway(
  options: {
    dataDir?: string;
    env?: Record<string, string>;
    dispatch?: boolean;
    logger?: Logger;
    host?: string;
    /** createApp's clock: a time (advice exports state it; timers stay real), or a whole clock a test moves. */
    clock?: (() => Date) | Clock;
  } = {},
): Promise<Gateway> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'tender-exchange-test-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    DATABASE_URL: await databaseUrlFor(dataDir),
    JWT_SECRET: TEST_JWT_SECRET,
    DEMO: 'false',
    AUTH_RATE_LIMIT: '1000',
    ...FAST_DISPATCH_ENV,
    ...options.env,
  });
  const orm = await openDatabase(config);
  // As in production: on PostgreSQL the outbox workers have a pool of their own.
  const workerOrm = await openWorkerDatabase(config);
  const app: App = await createApp({
    config,
    orm,
    workerOrm,
    logger: options.logger ?? pino({ level: 'error' }),
    clock: typeof options.clock === 'function' ? { ...systemClock, now: options.clock } : options.clock,
  });
  if (options.dispatch !== false) {
    app.dispatcher.start();
    app.webhooks.start();
    app.mail?.start();
  }
  const server: Server = createHttpServer(app.express);
  await new Promise<void>((resolve) => server.listen(0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const stop = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await app.stop();
    await workerOrm?.close();
    await orm.close();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    config,
    orm,
    dataDir,
    em: () => orm.em.fork(),
    stop,
    close: async () => {
      await stop();
      await removeDataDir(dataDir);
    },
  };
}

export interface Credentials {
  appId: string;
  secret: string;
}

export async function createClient(
  gateway: Gateway,
  role: Role,
  binding: { insurerId?: string; brokerCompanyId?: string } = {},
): Promise<Credentials> {
  const { client, secret } = await new ApiClientService(gateway.em()).create({ role, ...binding });
  return { appId: client.appId, secret };
}

export async function requestToken(gateway: Gateway, credentials: Credentials, expiry?: string): Promise<string> {
  const response = await fetch(`${gateway.url}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ app_id: credentials.appId, secret: credentials.secret, ...(expiry ? { expiry } : {}) }),
  });
  if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

export async function tokenFor(gateway: Gateway, role: Role, binding: { insurerId?: string; brokerCompanyId?: string } = {}) {
  return requestToken(gateway, await createClient(gateway, role, binding));
}

/** A response body as JSON, typed loosely for assertions on arbitrary shapes. */
export const json = (response: Response): Promise<any> => response.json();

export async function getJson(gateway: Gateway, path: string, token?: string) {
  const response = await fetch(`${gateway.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

export async function graphql(gateway: Gateway, token: string | undefined, query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as { data?: any; errors?: any; extensions?: any },
  };
}

/**
 * A REST request to `target` (a gateway in the test process or a process): a JSON body if given, a bearer token if
 * given; the answer's status, headers and body, parsed when it is JSON, else the text.
 */
export async function restRequest(target: { url: string }, method: string, path: string, token?: string, body?: unknown) {
  const response = await fetch(`${target.url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: /^\s*[{[]/.test(text) ? JSON.parse(text) : text || undefined,
  };
}

/** The data of a GraphQL operation that must succeed; the test fails with the errors otherwise. */
export async function graphqlData(gateway: Gateway, token: string, query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const { body } = await graphql(gateway, token, query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}
