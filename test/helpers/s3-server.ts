import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

export interface S3Server {
  /** The gateway's settings for a store in this server's bucket. */
  env: Record<string, string>;
  /** The folder the server keeps its objects in (to see that nothing was left). */
  directory: string;
  close(): Promise<void>;
}

/** A real S3-compatible server (s3rver) on a loopback port, with one bucket, `documents`. */
export async function startS3Server(): Promise<S3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'tender-exchange-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: 'documents', configs: [] }],
  });
  const { port } = await server.run();
  return {
    env: {
      DOCUMENT_STORE: 's3://documents/tender-exchange',
      DOCUMENT_S3_ENDPOINT: `http://127.0.0.1:${port}`,
      DOCUMENT_S3_ACCESS_KEY_ID: 'S3RVER',
      DOCUMENT_S3_SECRET_ACCESS_KEY: 'S3RVER',
    },
    directory,
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
