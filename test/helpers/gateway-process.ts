import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { MikroORM } from '@mikro-orm/core';
import { openDatabase } from '../../src/database';
import { loadConfig } from '../../src/platform/config';
import { databaseUrlFor, removeDataDir } from './database';
import { FAST_DISPATCH_ENV, TEST_JWT_SECRET } from './gateway';
import { productionStart } from '../../bench/production-start';

/**
 * Ports a process started by a test is told to listen on: below Linux's ephemeral range (32768 on), from which every
 * `listen(0)` of the suite's other servers and the local end of every outgoing connection are taken. A port from that
 * range, free when asked, could be someone's by the time the gateway binds it.
 */
const FIXED_PORTS = { from: 20_000, to: 32_000 };

/** A free loopback port, so a restarted gateway can come back on the same address. */
export async function freePort(): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const port = FIXED_PORTS.from + Math.floor(Math.random() * (FIXED_PORTS.to - FIXED_PORTS.from));
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      return port;
    }
    if (attempt === 50) throw new Error(`no free port in ${FIXED_PORTS.from}..${FIXED_PORTS.to} after 50 tries`);
  }
}

export interface GatewayProcess {
  url: string;
  /** Whether the process is still running. */
  alive(): boolean;
  /** What it printed to stdout so far. */
  stdout(): string;
  /** What it printed to stderr so far (Node's warnings among it). */
  stderr(): string;
  /** Its resident set size now, in MiB (Linux). */
  rssMiB(): number;
  /** SIGKILL: no shutdown hook runs, whatever was in flight is cut off. */
  kill(): Promise<void>;
  /** SIGTERM: a graceful shutdown; answers the exit code. */
  terminate(): Promise<number | null>;
}

let built: Promise<void> | undefined;

/**
 * `npm run build` once per test file (incremental: an unchanged tree compiles in seconds, 7 s of CPU on CI's machine):
 * the production start runs `dist/`. Asynchronous, so the test worker keeps answering vitest while tsc runs.
 * TEST_DIST_CURRENT=1 says dist/ was built from this tree before the run (.ci/run does): no file builds it again.
 */
export function buildProduction(): Promise<void> {
  if (process.env.TEST_DIST_CURRENT === '1') return Promise.resolve();
  built ??= promisify(execFile)(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json']).then(
    () => undefined,
    (error: Error & { stdout?: string }) => {
      built = undefined;
      throw new Error(`tsc -p tsconfig.build.json failed:\n${error.stdout ?? error.message}`);
    },
  );
  return built;
}

interface ProductionData {
  dataDir: string;
  /** What the production start runs with on this data: NODE_ENV=production, its database, the test's JWT secret. */
  env: Record<string, string>;
  /** The migrated database, for the test to fill before the start; the test closes it. */
  orm: MikroORM;
}

/** `dist/` built, and a fresh data folder and database for a production start, migrated and open for the test to fill. */
export async function productionData(prefix: string): Promise<ProductionData> {
  await buildProduction();
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const env = {
    NODE_ENV: 'production',
    JWT_SECRET: TEST_JWT_SECRET,
    DATA_DIR: dataDir,
    DATABASE_URL: await databaseUrlFor(dataDir),
    DEMO: 'false',
  };
  return { dataDir, env, orm: await openDatabase(loadConfig(env)) };
}

/** Kills the gateway if it still runs, and removes its data folder and database. */
export async function discardProductionData(gateway: GatewayProcess | undefined, dataDir: string): Promise<void> {
  if (gateway?.alive()) await gateway.kill();
  await removeDataDir(dataDir);
}

/** What a gateway process started by a test is told: its port, its data folder and database, the test secret, quiet. */
export async function processEnv(dataDir: string, port: number): Promise<Record<string, string>> {
  return {
    PORT: String(port),
    DATA_DIR: dataDir,
    DATABASE_URL: await databaseUrlFor(dataDir),
    JWT_SECRET: TEST_JWT_SECRET,
    DEMO: 'false',
    LOG_LEVEL: 'error',
  };
}

/**
 * `npm start` (or, with `production`, `npm run start:prod` after `buildProduction()`) as its own process on
 * `dataDir`'s database, as an operator runs it.
 */
export async function spawnGateway(
  dataDir: string,
  port: number,
  env: Record<string, string> = {},
  {
    production = false,
    onSpawn,
  }: {
    production?: boolean;
    /** Called with the process as soon as it runs: a test may kill it before it is healthy (its start's own work). */
    onSpawn?: (child: ChildProcess) => void;
  } = {},
): Promise<GatewayProcess> {
  // One process (node with tsx as a loader, not the tsx CLI, which forks): SIGKILL must hit the gateway itself.
  // The production start as `npm run start:prod` runs it: its environment settings, heap cap and entry.
  const start = production ? productionStart() : { env: {}, nodeOptions: ['--import', 'tsx'], entry: 'src/main.ts' };
  const child: ChildProcess = spawn(process.execPath, [...start.nodeOptions, start.entry], {
    env: {
      ...process.env,
      ...start.env,
      NODE_ENV: 'test',
      ...(await processEnv(dataDir, port)),
      ...FAST_DISPATCH_ENV,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onSpawn?.(child);
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://${env.HOST ?? '127.0.0.1'}:${port}`;
  // Generous: a start on a loaded machine (the suite's files run side by side) takes tens of seconds.
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`gateway exited with ${child.exitCode ?? child.signalCode}: ${stderr}`);
    const healthy = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (healthy) break;
    if (Date.now() > deadline) throw new Error(`gateway did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    alive: () => child.exitCode === null && child.signalCode === null,
    stdout: () => stdout,
    stderr: () => stderr,
    rssMiB: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    terminate: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
