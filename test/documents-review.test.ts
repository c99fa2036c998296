import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { Document, createDocumentStore, sweepDocuments } from '../src/documents';
import { Tender } from '../src/tenders';
import { createTender } from './helpers/fixtures';
import { getJson } from './helpers/gateway';
import { withGateway } from './helpers/scene';
import { PDF, createUpload, holdDocuments, sha256 } from './helpers/documents';

/** Review findings on documents (issue 28), each as a user or an operator meets it, on the configured engine. */
let broker: string;

const scene = withGateway({ per: 'file', dispatch: false, env: { REQUEST_TIMEOUT_MS: '2000' }, world: true });

beforeAll(async () => {
  broker = await scene.token(Role.BROKER);
});

const fileOf = (digest: string) => join(scene.gateway.dataDir, 'documents', digest.slice(0, 2), digest);
const bigPdf = (size: number, fill = 0x20) => Buffer.concat([PDF, Buffer.alloc(size - PDF.length, fill)]);

/** PUTs `bytes` in two halves, `pauseMs` apart (or runs `between` meanwhile); answers the status and body. */
function slowPut(url: string, bytes: Buffer, pauseMs: number, between?: () => Promise<void>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'PUT', headers: { 'content-length': String(bytes.length) } }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    const half = Math.floor(bytes.length / 2);
    req.write(bytes.subarray(0, half));
    setTimeout(() => {
      (between ?? (() => Promise.resolve()))().then(() => req.end(bytes.subarray(half)), reject);
    }, pauseMs);
  });
}

describe('documents: review findings', () => {
  it('a large upload slower than REQUEST_TIMEOUT_MS completes with 200 within the deadline sized to its document', async () => {
    const tender = await createTender(scene.gateway.em(), scene.world, {});
    const bytes = bigPdf(4 * 1024 * 1024);
    const slot = await createUpload(scene.gateway, broker, { tenderId: tender.id, kind: 'RISK', filename: 'large.pdf' }, bytes);
    const answer = await slowPut(slot.body.data.createDocumentUpload.uploadUrl, bytes, 3000);
    expect(answer.status, answer.body).toBe(200);
    const list = await getJson(scene.gateway, `/api/v1/tenders/${tender.id}/documents`, broker);
    expect(list.body.payload.map((document: { filename: string }) => document.filename)).toEqual(['large.pdf']);
  });

  it('an upload whose slot went while its bytes arrived answers 404 and leaves no bytes in the store', async () => {
    const tender = await createTender(scene.gateway.em(), scene.world, {});
    const bytes = bigPdf(64 * 1024, 0x21);
    const slot = await createUpload(scene.gateway, broker, { tenderId: tender.id, kind: 'RISK', filename: 'orphan.pdf' }, bytes);
    const id = slot.body.data.createDocumentUpload.document.id;
    const answer = await slowPut(slot.body.data.createDocumentUpload.uploadUrl, bytes, 100, async () => {
      await scene.gateway.em().nativeDelete(Document, { id });
    });
    expect(answer.status).toBe(404);
    expect(existsSync(fileOf(sha256(bytes)))).toBe(false);
  });

  it("the sweeper keeps a content file while another document's upload of the same bytes is still pending", async () => {
    const tender = await createTender(scene.gateway.em(), scene.world, {});
    const bytes = bigPdf(8 * 1024, 0x22);
    const digest = sha256(bytes);
    const em = scene.gateway.em();
    const now = Date.now();
    const row = (uploadExpiresAt: Date) =>
      em.create(Document, {
        tender: em.getReference(Tender, tender.id),
        kind: 'RISK' as Document['kind'],
        filename: 'same.pdf',
        contentType: 'application/pdf',
        size: bytes.length,
        sha256: digest,
        addedBy: 'test',
        addedByRole: Role.BROKER,
        uploadExpiresAt,
      });
    // A slot long expired, and one whose bytes were committed to the shared file but not yet made visible.
    row(new Date(now - 3_600_000));
    row(new Date(now + 60_000));
    await em.flush();
    const store = createDocumentStore({ kind: 'filesystem', dir: join(scene.gateway.dataDir, 'documents') });
    const pending = await store.begin({ id: 'x', sha256: digest }, bytes.length);
    pending.sink.end(bytes);
    await pending.commit();
    await sweepDocuments(scene.gateway.em(), { store, linkTtlMs: 60_000 });
    expect(existsSync(fileOf(digest))).toBe(true);
  });

  it('the sweeper removes a content file no document names (a crash between the rename and the commit) and keeps the others', async () => {
    const tender = await createTender(scene.gateway.em(), scene.world, {});
    const kept = bigPdf(4 * 1024, 0x23);
    const slot = await createUpload(scene.gateway, broker, { tenderId: tender.id, kind: 'RISK', filename: 'kept.pdf' }, kept);
    expect((await slowPut(slot.body.data.createDocumentUpload.uploadUrl, kept, 0)).status).toBe(200);
    const orphan = bigPdf(4 * 1024, 0x24);
    const store = createDocumentStore({ kind: 'filesystem', dir: join(scene.gateway.dataDir, 'documents') });
    const pending = await store.begin({ id: 'crashed', sha256: sha256(orphan) }, orphan.length);
    pending.sink.end(orphan);
    await pending.commit();
    // Both files are older than the grace period when the sweeper looks.
    await sweepDocuments(scene.gateway.em(), { store, linkTtlMs: 60_000 }, new Date(Date.now() + 3_600_000));
    expect(existsSync(fileOf(sha256(orphan)))).toBe(false);
    expect(existsSync(fileOf(sha256(kept)))).toBe(true);
  });

  it('concurrent upload slots cannot together pass the 100 documents of a tender', async () => {
    const tender = await createTender(scene.gateway.em(), scene.world, {});
    await holdDocuments(scene.gateway.em(), tender.id, 98);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        createUpload(scene.gateway, broker, { tenderId: tender.id, kind: 'RISK', filename: `race-${i}.pdf` }, PDF),
      ),
    );
    const created = answers.filter((answer) => !answer.body.errors);
    expect(created).toHaveLength(2);
    expect(answers.filter((answer) => answer.body.errors?.[0]?.extensions?.code === 'CONFLICT')).toHaveLength(4);
    expect(await scene.gateway.em().count(Document, { tender: tender.id })).toBe(100);
  });
});
