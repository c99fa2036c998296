import { execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_CLIENTS } from '../src/seed/demo-data';
import { SERVER_URL, databaseUrlFor, removeDataDir } from './helpers/database';
import { FAST_DISPATCH_ENV, TEST_JWT_SECRET } from './helpers/gateway';
import {
  buildProduction,
  discardProductionData,
  freePort,
  productionData,
  spawnGateway,
  type GatewayProcess,
} from './helpers/gateway-process';

/**
 * Issue 30, item 4: the output is logs only. In production nothing but JSON lines; in development the banner only
 * on a terminal; a secret (the JWT secret, a database password, the demo clients' secrets) never outside demo mode.
 */
const DATABASE_PASSWORD = 'pg-password-not-for-logs';
const BANNER = 'Tender Exchange gateway on';

/** PostgreSQL's trust authentication takes any password: one in the URL shows whether it is ever printed. */
function withPassword(databaseUrl: string): string {
  if (!SERVER_URL) return databaseUrl;
  const url = new URL(databaseUrl);
  url.password = DATABASE_PASSWORD;
  return url.toString();
}

const secretsIn = (output: string) =>
  [TEST_JWT_SECRET, DATABASE_PASSWORD, ...DEMO_CLIENTS.map((client) => client.secret)].filter((secret) => output.includes(secret));

function expectJsonLinesOnly(output: string): void {
  const lines = output.split('\n').filter((line) => line !== '');
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
}

let gateway: GatewayProcess | undefined;
let dataDir: string | undefined;

afterEach(async () => {
  if (dataDir) await discardProductionData(gateway, dataDir);
  gateway = undefined;
  dataDir = undefined;
});

describe('what the gateway prints', () => {
  it('prints only JSON log lines in production, without the banner, the JWT secret or the database password', async () => {
    const prepared = await productionData('tender-exchange-output-');
    dataDir = prepared.dataDir;
    await prepared.orm.close();
    const env = { ...prepared.env, DATABASE_URL: withPassword(prepared.env.DATABASE_URL), LOG_LEVEL: 'info' };
    gateway = await spawnGateway(dataDir, await freePort(), env, { production: true });
    await fetch(`${gateway.url}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"app_id":"x","secret":"y"}',
    });
    expect(await gateway.terminate()).toBe(0);
    const output = gateway.stdout();
    expect(output).not.toContain(BANNER);
    expectJsonLinesOnly(output);
    expect(output).toContain('"msg":"gateway listening"');
    expect(secretsIn(output)).toEqual([]);
  }, 180_000);

  it('prints a failed production start as a JSON log line too, and nothing on stderr', async () => {
    await buildProduction();
    const env = { ...process.env, NODE_ENV: 'production', JWT_SECRET: TEST_JWT_SECRET, PORT: 'not-a-port' };
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, ['dist/main.js'], { env }, (error, out, err) =>
        resolve({ code: error ? (error.code as number) : 0, stdout: out, stderr: err }),
      );
    });
    expect(code).toBe(1);
    expect(stderr).toBe('');
    expectJsonLinesOnly(stdout);
    expect(JSON.parse(stdout.trim().split('\n').pop()!)).toMatchObject({ level: 60, msg: 'failed to start' });
  }, 120_000);

  it('prints only JSON log lines in development when stdout is not a terminal, demo mode included', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tender-exchange-output-'));
    const env = { NODE_ENV: 'development', DEMO: 'true', SIM_PORT: '0', LOG_LEVEL: 'info' };
    gateway = await spawnGateway(dataDir, await freePort(), env);
    expect(await gateway.terminate()).toBe(0);
    const output = gateway.stdout();
    expect(output).not.toContain(BANNER);
    expectJsonLinesOnly(output);
    expect(secretsIn(output)).toEqual([]);
  }, 60_000);

  it('prints the banner on a terminal in development, without a secret outside demo mode', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'tender-exchange-output-'));
    const port = await freePort();
    // `script` gives the gateway a pseudo-terminal for stdout, as a person's shell does.
    const child = spawn('script', ['-qefc', `'${process.execPath}' --import tsx src/main.ts`, '/dev/null'], {
      env: {
        ...process.env,
        ...FAST_DISPATCH_ENV,
        NODE_ENV: 'development',
        DEMO: 'false',
        PORT: String(port),
        DATA_DIR: folder,
        DATABASE_URL: withPassword(await databaseUrlFor(folder)),
        // On PostgreSQL a LISTEN connection of its own (as past PgBouncer), named on a line of its own, its password hidden.
        ...(SERVER_URL ? { DATABASE_LISTEN_URL: withPassword(`${await databaseUrlFor(folder)}?application_name=listen`) } : {}),
        JWT_SECRET: TEST_JWT_SECRET,
        LOG_LEVEL: 'info',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const deadline = Date.now() + 45_000;
      while (!output.includes('Database ') && Date.now() < deadline && child.exitCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(output).toContain(BANNER);
      expect(output).toContain(`http://localhost:${port}/auth/token`);
      // Without SMTP_URL, development catches the mail in the process and names where it shows.
      expect(output).toContain(`http://localhost:${port}/dev/mail`);
      if (SERVER_URL) expect(output).toContain(':***@');
      if (SERVER_URL) expect(output).toMatch(/Its LISTEN connection +postgres:\/\/[^:\s]+:\*\*\*@[^\s]+application_name=listen/);
      expect(secretsIn(output)).toEqual([]);
    } finally {
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
      await removeDataDir(folder);
    }
  }, 60_000);
});
