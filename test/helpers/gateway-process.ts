import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { databaseUrlFor } from './database';
import { FAST_DISPATCH_ENV, TEST_JWT_SECRET } from './gateway';

/** A free loopback port, so a restarted gateway can come back on the same address. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface GatewayProcess {
  url: string;
  /** SIGKILL: no shutdown hook runs, whatever was in flight is cut off. */
  kill(): Promise<void>;
  /** SIGTERM: a graceful shutdown; answers the exit code. */
  terminate(): Promise<number | null>;
}

/** `npm start` as its own process on `dataDir`'s database, as an operator runs it. */
export async function spawnGateway(dataDir: string, port: number, env: Record<string, string> = {}): Promise<GatewayProcess> {
  // One process (node with tsx as a loader, not the tsx CLI, which forks): SIGKILL must hit the gateway itself.
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: await databaseUrlFor(dataDir),
      JWT_SECRET: TEST_JWT_SECRET,
      DEMO: 'false',
      LOG_LEVEL: 'error',
      ...FAST_DISPATCH_ENV,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway exited with ${child.exitCode}: ${stderr}`);
    const healthy = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (healthy) break;
    if (Date.now() > deadline) throw new Error(`gateway did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
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
