import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** BENCH_DOCUMENT_STORE: `filesystem` (the default, the gateway's data folder) or `s3` (s3rver on loopback). */
export const BENCH_DOCUMENT_STORE = process.env.BENCH_DOCUMENT_STORE ?? 'filesystem';

/**
 * s3rver in a plain node process of its own: under the bench's tsx loader its koa middleware check fails, and apart it
 * takes none of the bench's CPU time in its figures.
 */
const S3RVER = `const S3rver = require('s3rver');
new S3rver({ address: '127.0.0.1', port: 0, directory: process.argv[1], silent: true, configureBuckets: [{ name: 'documents', configs: [] }] })
  .run().then(({ port }) => console.log(port));`;

/** The gateway's document store settings for the bench, and how to stop what was started for it. */
export async function benchDocumentStore(): Promise<{ env: Record<string, string>; close(): Promise<void> }> {
  if (BENCH_DOCUMENT_STORE === 'filesystem') return { env: {}, close: () => Promise.resolve() };
  if (BENCH_DOCUMENT_STORE !== 's3') throw new Error(`BENCH_DOCUMENT_STORE must be filesystem or s3, got "${BENCH_DOCUMENT_STORE}"`);
  const directory = mkdtempSync(join(tmpdir(), 'tender-exchange-bench-s3-'));
  const server = spawn(process.execPath, ['-e', S3RVER, directory], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    server.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    server.once('exit', (code) => reject(new Error(`s3rver exited with ${code}`)));
  });
  return {
    env: {
      DOCUMENT_STORE: 's3://documents/bench',
      DOCUMENT_S3_ENDPOINT: `http://127.0.0.1:${port}`,
      DOCUMENT_S3_ACCESS_KEY_ID: 'S3RVER',
      DOCUMENT_S3_SECRET_ACCESS_KEY: 'S3RVER',
    },
    close: async () => {
      server.kill('SIGTERM');
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
