import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { Document, DocumentRemoval } from '../src/documents';
import { createTender, createWorld, type World } from './helpers/fixtures';
import { createClient, graphql, requestToken, startGateway, TEST_JWT_SECRET, type Credentials, type Gateway } from './helpers/gateway';
import { cli as runCli } from './helpers/cli';
import { databaseUrlFor, removeDataDir } from './helpers/database';
import { PDF, PNG, addDocument, sha256 } from './helpers/documents';
import { startS3Server, type S3Server } from './helpers/s3-server';

/**
 * Switching DOCUMENT_STORE (issue 37, point 11): each document names the store its bytes are in and is read from
 * there, whatever the gateway now writes to; a store it cannot read is a clear 503, never a 302 to a 404; and
 * `documents:migrate-store` moves the documents into the configured store (SHA-256 checked, idempotent, resumable).
 * The S3 store is a real S3-compatible server (s3rver) on loopback; the database the configured engine.
 */

let s3: S3Server;
let dataDir: string;
let gateway: Gateway | undefined;
let world: World;
let brokerClient: Credentials;

/** The gateway on the shared data folder and database, with this store configured. */
async function restart(env: Record<string, string>): Promise<Gateway> {
  await gateway?.stop();
  gateway = await startGateway({ dataDir, dispatch: false, env });
  return gateway;
}

const onS3 = () => s3.env;
/** DOCUMENT_STORE=filesystem, with the S3 connection settings still in place (the store switched away from). */
const onFilesystem = () => ({ ...s3.env, DOCUMENT_STORE: 'filesystem' });

/** The content route as a client sees it (not following a redirect). */
async function content(g: Gateway, tenderId: string, documentId: string) {
  const token = await requestToken(g, brokerClient);
  const response = await fetch(`${g.url}/api/v1/tenders/${tenderId}/documents/${documentId}/content`, {
    headers: { authorization: `Bearer ${token}` },
    redirect: 'manual',
  });
  const body = Buffer.from(await response.arrayBuffer());
  return { status: response.status, location: response.headers.get('location'), type: response.headers.get('content-type'), body };
}

/** What a client ends with: the bytes, through the S3 store's redirect where there is one. */
async function bytesOf(g: Gateway, tenderId: string, documentId: string) {
  const first = await content(g, tenderId, documentId);
  if (first.status !== 302) return first;
  const followed = await fetch(first.location!);
  return { ...first, status: followed.status, body: Buffer.from(await followed.arrayBuffer()) };
}

/** `npm run cli -- ...` on the test's database with `env`'s store, in the test process (the program main.ts runs). */
async function cli(env: Record<string, string>, ...args: string[]) {
  return runCli({ DATA_DIR: dataDir, DATABASE_URL: await databaseUrlFor(dataDir), JWT_SECRET: TEST_JWT_SECRET, ...env }, ...args);
}

const storesOf = async (g: Gateway, ids: string[]) =>
  (await g.em().find(Document, { id: { $in: ids } }, { orderBy: { createdAt: 'asc' } })).map((document) => document.store);

beforeAll(async () => {
  s3 = await startS3Server();
  dataDir = mkdtempSync(join(tmpdir(), 'tender-exchange-store-switch-'));
  const g = await restart(onFilesystem());
  world = await createWorld(g.em());
  brokerClient = await createClient(g, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
});

afterAll(async () => {
  await gateway?.stop();
  await removeDataDir(dataDir);
  await s3?.close();
});

describe('switching DOCUMENT_STORE', () => {
  let tenderId: string;
  let onDisk: string;
  let inBucket: string;

  it('documents written to the filesystem store stay readable after switching to S3: streamed from their own store, not a 302 to a 404', async () => {
    let g = await restart(onFilesystem());
    tenderId = (await createTender(g.em(), world, {})).id;
    onDisk = await addDocument(g, await requestToken(g, brokerClient), { tenderId, kind: 'RISK', filename: 'risk.pdf' });
    expect(await storesOf(g, [onDisk])).toEqual(['filesystem']);

    g = await restart(onS3());
    inBucket = await addDocument(
      g,
      await requestToken(g, brokerClient),
      { tenderId, kind: 'OTHER', contentType: 'image/png', filename: 'plan.png' },
      PNG,
    );
    expect(await storesOf(g, [onDisk, inBucket])).toEqual(['filesystem', 's3://documents/tender-exchange']);
    const earlier = await content(g, tenderId, onDisk);
    expect([earlier.status, earlier.type]).toEqual([200, 'application/pdf']);
    expect(earlier.body.equals(PDF)).toBe(true);
    const later = await bytesOf(g, tenderId, inBucket);
    expect([later.status, later.body.equals(PNG)]).toEqual([200, true]);
  });

  it('and back: S3 documents are read from their bucket with the S3 settings still configured, filesystem ones from DATA_DIR', async () => {
    const g = await restart(onFilesystem());
    const fromBucket = await content(g, tenderId, inBucket);
    expect(fromBucket.status).toBe(302);
    expect(fromBucket.location).toContain('X-Amz-Signature=');
    const followed = await fetch(fromBucket.location!);
    expect([followed.status, Buffer.from(await followed.arrayBuffer()).equals(PNG)]).toEqual([200, true]);
    const fromDisk = await content(g, tenderId, onDisk);
    expect([fromDisk.status, fromDisk.body.equals(PDF)]).toEqual([200, true]);
  });

  it('a document whose store this gateway cannot reach answers a 503 problem naming it, on the content route and its link', async () => {
    // The S3 settings point nowhere: the bucket the document names cannot be read.
    const g = await restart({
      DOCUMENT_STORE: 'filesystem',
      DOCUMENT_S3_ENDPOINT: 'http://127.0.0.1:9',
      DOCUMENT_S3_ACCESS_KEY_ID: 'x',
      DOCUMENT_S3_SECRET_ACCESS_KEY: 'y',
    });
    const answer = await content(g, tenderId, inBucket);
    expect(answer.status).toBe(503);
    expect(answer.type).toMatch(/^application\/problem\+json/);
    const problem = JSON.parse(answer.body.toString('utf8'));
    expect(problem.code).toBe('SERVICE_UNAVAILABLE');
    expect(problem.detail).toContain('s3://documents/tender-exchange');
    expect(problem.detail).toContain('documents:migrate-store');
    const { body } = await graphql(
      g,
      await requestToken(g, brokerClient),
      'query ($id: ID!) { tender(id: $id) { documents { id downloadUrl } } }',
      {
        id: tenderId,
      },
    );
    const link = body.data.tender.documents.find((document: { id: string }) => document.id === inBucket).downloadUrl;
    const viaLink = await fetch(link, { redirect: 'manual' });
    expect([viaLink.status, ((await viaLink.json()) as { code: string }).code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    // The filesystem document is unaffected.
    expect((await content(g, tenderId, onDisk)).status).toBe(200);
  });

  it('rows from before stores were named get the store configured at the start', async () => {
    const g = await restart(onFilesystem());
    await g.em().nativeUpdate(Document, { id: onDisk }, { store: null });
    await g.em().insert(DocumentRemoval, { id: 'gone-before-the-upgrade', sha256: sha256('x'), store: null, createdAt: new Date() });
    const again = await restart(onFilesystem());
    expect(await storesOf(again, [onDisk])).toEqual(['filesystem']);
    expect((await again.em().findOneOrFail(DocumentRemoval, { id: 'gone-before-the-upgrade' })).store).toBe('filesystem');
    await again.em().nativeDelete(DocumentRemoval, { id: 'gone-before-the-upgrade' });
  });
});

describe('documents:migrate-store', () => {
  afterEach(async () => {
    await gateway?.stop();
    gateway = undefined;
  });

  it('moves the filesystem documents into the configured S3 store, SHA-256 checked, and is idempotent and resumable', async () => {
    let g = await restart(onFilesystem());
    const token = await requestToken(g, brokerClient);
    const tender = (await createTender(g.em(), world, {})).id;
    const bytes = [0, 1, 2].map((n) => Buffer.concat([PDF, Buffer.from(`% document ${n}\n`)]));
    const ids: string[] = [];
    for (const [n, body] of bytes.entries())
      ids.push(await addDocument(g, token, { tenderId: tender, kind: 'RISK', filename: `d${n}.pdf` }, body));
    await g.stop();
    gateway = undefined;

    // One file differs from its SHA-256 (a damaged disk): that document is not moved, the others are.
    const damaged = join(dataDir, 'documents', sha256(bytes[1]).slice(0, 2), sha256(bytes[1]));
    writeFileSync(damaged, Buffer.from(bytes[1].toString('latin1').replace('document 1', 'document X'), 'latin1'));
    const first = await cli(onS3(), 'documents:migrate-store', '--from', 'filesystem', '--json');
    expect(first.code, first.stderr).toBe(1);
    const report = JSON.parse(first.stdout);
    expect(report).toMatchObject({ to: 's3://documents/tender-exchange', failed: [{ document_id: ids[1], store: 'filesystem' }] });
    expect(report.failed[0].reason).toContain('SHA-256');
    expect(report.moved).toBeGreaterThanOrEqual(2);

    g = await restart(onS3());
    expect(await storesOf(g, ids)).toEqual(['s3://documents/tender-exchange', 'filesystem', 's3://documents/tender-exchange']);
    // Moved documents come from the bucket now; the failed one is still read from its own store, as it is.
    const moved = await content(g, tender, ids[0]);
    expect(moved.status).toBe(302);
    expect((await bytesOf(g, tender, ids[2])).body.equals(bytes[2])).toBe(true);
    expect((await content(g, tender, ids[1])).status).toBe(200);
    await g.stop();
    gateway = undefined;

    // Repaired, run again: only the one left is copied.
    writeFileSync(damaged, bytes[1]);
    const second = await cli(onS3(), 'documents:migrate-store', '--json');
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ moved: 1, failed: [] });
    const third = await cli(onS3(), 'documents:migrate-store', '--json');
    expect(JSON.parse(third.stdout)).toMatchObject({ moved: 0, failed: [] });

    g = await restart(onS3());
    expect(await storesOf(g, ids)).toEqual(ids.map(() => 's3://documents/tender-exchange'));
    for (const [n, id] of ids.entries()) {
      const read = await bytesOf(g, tender, id);
      expect([read.status, sha256(read.body)]).toEqual([200, sha256(bytes[n])]);
    }
  });

  it('moves S3 documents into the filesystem store; a bad --from is a usage error', async () => {
    let g = await restart(onS3());
    const tender = (await createTender(g.em(), world, {})).id;
    const body = Buffer.concat([PDF, Buffer.from('% from the bucket\n')]);
    const id = await addDocument(g, await requestToken(g, brokerClient), { tenderId: tender, kind: 'RISK' }, body);
    await g.stop();
    gateway = undefined;
    expect((await cli(onFilesystem(), 'documents:migrate-store', '--from', 'ftp://x')).code).toBe(2);
    const moved = await cli(onFilesystem(), 'documents:migrate-store', '--from', 's3://documents/tender-exchange');
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toMatch(/^\d+ documents moved into filesystem/);
    g = await restart(onFilesystem());
    expect(await storesOf(g, [id])).toEqual(['filesystem']);
    const read = await content(g, tender, id);
    expect([read.status, read.body.equals(body)]).toEqual([200, true]);
  });
});
