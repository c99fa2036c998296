import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropDatabaseFor } from './helpers/database';
import { freePort, spawnGateway, type GatewayProcess } from './helpers/gateway-process';

const run = promisify(execFile);
let dataDir: string;
let gateway: GatewayProcess;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tender-exchange-demo-'));
  // As `npm start` runs it: demo data, demo clients, and the insurer simulator on its own port.
  gateway = await spawnGateway(dataDir, await freePort(), { DEMO: 'true', SIM_PORT: String(await freePort()) });
}, 90_000);

afterAll(async () => {
  await gateway?.kill();
  await dropDatabaseFor(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm run demo', () => {
  it('runs a quote round trip against the running gateway: every state change with its time, then the proposal', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/demo/quote-round-trip.ts'], { env: { ...process.env, GATEWAY_URL: gateway.url }, timeout: 60_000 });
    const changes = stdout.split('\n').filter((line) => / ms {2}\S.* (QUEUED|PROCESSING|AVAILABLE|QUOTED)$/.test(line));
    for (const status of ['QUEUED', 'PROCESSING', 'AVAILABLE', 'QUOTED']) expect(changes.filter((line) => line.endsWith(status)), status).toHaveLength(3);
    // In order for each insurer, with rising times.
    const times = changes.map((line) => Number(line.trim().split(' ')[0]));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(stdout).toMatch(/Proposal overview .*\n\s+1,000,000\.00 \/ deductible\s+10,000\.00\s+\S.*premium [\d,.]+, with tax [\d,.]+/);
  });

  it('says plainly when no gateway answers, and fails', async () => {
    const failed = await run(process.execPath, ['--import', 'tsx', 'src/demo/quote-round-trip.ts'], { env: { ...process.env, GATEWAY_URL: `http://127.0.0.1:${await freePort()}` } }).catch((error) => error);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^demo failed: no gateway at http:\/\/127\.0\.0\.1:\d+ .*start it with npm start/);
  });
});
