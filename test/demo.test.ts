import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDataDir } from './helpers/database';
import { freePort, spawnGateway, type GatewayProcess } from './helpers/gateway-process';
import { waitFor } from './helpers/simulator';

const run = promisify(execFile);
let dataDir: string;
let gateway: GatewayProcess;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tender-exchange-demo-'));
  // As `npm start` runs it: demo data, demo clients, and the insurer simulator on its own port.
  gateway = await spawnGateway(dataDir, await freePort(), { DEMO: 'true', SIM_PORT: String(await freePort()) });
  // Longer than spawnGateway's own deadline, so a start that fails says why (the gateway's stderr), not "timed out".
}, 150_000);

afterAll(async () => {
  await gateway?.kill();
  await removeDataDir(dataDir);
});

describe('npm run demo', () => {
  it('runs a quote round trip against the running gateway: every state change with its time, the proposal, then the quote slip downloaded', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/demo/quote-round-trip.ts'], {
      env: { ...process.env, GATEWAY_URL: gateway.url },
      timeout: 60_000,
    });
    const changes = stdout
      .split('\n')
      .map((line) => / *(\d+) ms {2}(\S.*?) +(QUEUED|PROCESSING|AVAILABLE|QUOTED)$/.exec(line))
      .filter((match) => match !== null)
      .map(([, ms, insurer, status]) => ({ ms: Number(ms), insurer, status }));
    const insurers = [...new Set(changes.map((change) => change.insurer))];
    expect(insurers).toHaveLength(3);
    // The demo data answered the tender from its question set: each insurer was sent the answers it requires.
    expect(stdout).toMatch(/risk information from its risk assessment \(.+, question set version 1\)/);
    // Every insurer's request through every state, in order, at the times the gateway recorded them.
    for (const insurer of insurers) {
      const own = changes.filter((change) => change.insurer === insurer);
      expect(
        own.map((change) => change.status),
        insurer,
      ).toEqual(['QUEUED', 'PROCESSING', 'AVAILABLE', 'QUOTED']);
      expect(
        own.map((change) => change.ms),
        insurer,
      ).toEqual([...own.map((change) => change.ms)].sort((a, b) => a - b));
    }
    // The first simulated insurer lists its quote slip: listed, downloaded, its SHA-256 checked.
    expect(stdout).toMatch(/Quote documents \(1\)\n\s+\S.*quote-slip-\S+\.pdf \((\d+) bytes\): downloaded \1 bytes, SHA-256 matches/);
    expect(stdout).toMatch(/Proposal overview .*\n\s+1,000,000\.00 \/ deductible\s+10,000\.00\s+\S.*premium [\d,.]+, with tax [\d,.]+/);
  });

  it("npm start catches the demo's invitations in its development mailbox, shown at /dev/mail", async () => {
    // The mail outbox sends after the invitations' transaction, in the background: the mailbox shows them once sent.
    const html = await waitFor(
      'the invitations in the development mailbox',
      async () => {
        const list = await fetch(`${gateway.url}/dev/mail`);
        expect(list.status).toBe(200);
        expect(list.headers.get('content-security-policy')).toContain("default-src 'none'");
        const page = await list.text();
        return /Einladung zur Angebotsabgabe|Invitation to quote/.test(page) && page;
      },
      30_000,
    );
    const id = /href="\/dev\/mail\/([0-9a-f-]{36})"/.exec(html)![1];
    const one = await (await fetch(`${gateway.url}/dev/mail/${id}`)).text();
    expect(one).toContain('<iframe title="The mail\'s HTML" sandbox src="/dev/mail/');
    expect(one).toContain('list-unsubscribe');
    const frame = await fetch(`${gateway.url}/dev/mail/${id}/html`);
    expect(frame.headers.get('content-security-policy')).toContain('sandbox');
  }, 60_000);

  it('says plainly when no gateway answers, and fails', async () => {
    const failed = await run(process.execPath, ['--import', 'tsx', 'src/demo/quote-round-trip.ts'], {
      env: { ...process.env, GATEWAY_URL: `http://127.0.0.1:${await freePort()}` },
    }).catch((error) => error);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^demo failed: no gateway at http:\/\/127\.0\.0\.1:\d+ .*start it with npm start/);
  });
});
