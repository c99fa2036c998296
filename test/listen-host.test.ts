import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeDataDir } from './helpers/database';
import { freePort, spawnGateway, type GatewayProcess } from './helpers/gateway-process';

const dataDir = mkdtempSync(join(tmpdir(), 'tender-exchange-host-'));
let gateway: GatewayProcess | undefined;

afterAll(async () => {
  await gateway?.kill();
  await removeDataDir(dataDir);
});

describe('HOST', () => {
  it('chooses the interface the gateway listens on: with HOST=127.0.0.2 it answers there and refuses 127.0.0.1', async () => {
    const port = await freePort();
    gateway = await spawnGateway(dataDir, port, { HOST: '127.0.0.2' });
    expect((await fetch(`http://127.0.0.2:${port}/healthz`)).status).toBe(200);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });
});
