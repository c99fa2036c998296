import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { deleteTenderDocuments, removeDocumentBytes, sweepDocuments } from '../src/documents';
import { createTender } from './helpers/fixtures';
import { getJson, graphql } from './helpers/gateway';
import { withGateway } from './helpers/scene';
import { PDF, addDocument, createUpload, put, sha256 } from './helpers/documents';
import { startS3Server, type S3Server } from './helpers/s3-server';

/** The S3 store against a real S3-compatible server (s3rver), on the configured engine. */
let s3: S3Server;
let broker: string;

/** The objects the store keeps under its prefix (s3rver keeps each as `<key>._S3rver_object` beside its metadata). */
const objects = () => {
  try {
    return readdirSync(join(s3.directory, 'documents', 'tender-exchange'))
      .filter((name) => name.endsWith('._S3rver_object'))
      .map((name) => name.replace('._S3rver_object', ''));
  } catch {
    return [];
  }
};

const scene = withGateway({ per: 'file', dispatch: false, world: true, start: 'manual' });

beforeAll(async () => {
  s3 = scene.closes(await startS3Server());
  await scene.start({ ...s3.env, DOCUMENT_LINK_TTL: '2s' });
  broker = await scene.token(Role.BROKER);
});

describe('the S3 store', () => {
  it('keeps the uploaded bytes in the bucket, and the content route redirects to a presigned link that answers them', async () => {
    const tender = await createTender(scene.gateway.em(), scene.world, {});
    const id = await addDocument(scene.gateway, broker, { tenderId: tender.id, kind: 'RISK', filename: 'risk file.pdf' });
    expect(objects()).toContain(id);
    const list = await getJson(scene.gateway, `/api/v1/tenders/${tender.id}/documents`, broker);
    expect(list.body.payload.map((document: { _id: string; sha256: string }) => [document._id, document.sha256])).toEqual([
      [id, sha256(PDF)],
    ]);

    const path = `${scene.gateway.url}/api/v1/tenders/${tender.id}/documents/${id}/content`;
    const redirect = await fetch(path, { headers: { authorization: `Bearer ${broker}` }, redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('etag')).toBe(`"${sha256(PDF)}"`);
    const link = redirect.headers.get('location')!;
    expect(link).toContain('X-Amz-Signature=');
    const bytes = await fetch(link);
    expect(bytes.status).toBe(200);
    expect(bytes.headers.get('content-disposition')).toContain('attachment; filename="risk file.pdf"');
    expect(Buffer.from(await bytes.arrayBuffer())).toEqual(PDF);

    const unchanged = await fetch(path, {
      headers: { authorization: `Bearer ${broker}`, 'if-none-match': `"${sha256(PDF)}"` },
      redirect: 'manual',
    });
    expect(unchanged.status).toBe(304);
  });

  it('bytes that do not match leave no object behind', async () => {
    const tender = await createTender(scene.gateway.em(), scene.world, {});
    const before = objects().length;
    const slot = await createUpload(scene.gateway, broker, { tenderId: tender.id, kind: 'RISK' }, PDF, { sha256: sha256('other bytes') });
    expect((await put(slot.body.data.createDocumentUpload.uploadUrl, PDF)).status).toBe(400);
    expect(objects().length).toBe(before);
    // Whatever a failed upload's temporary object left (a delete racing the PUT it stopped) goes with the sweeper, and
    // so does an object no document names (a crash between the copy and the commit); the documents' objects stay.
    const orphan = await scene.gateway.app.documents.store.begin({ id: 'orphan-of-a-crash', sha256: sha256(PDF) }, PDF.length);
    orphan.sink.end(PDF);
    await orphan.commit();
    const kept = objects().filter((name) => name !== 'orphan-of-a-crash');
    await sweepDocuments(scene.gateway.em(), scene.gateway.app.documents, new Date(Date.now() + 3_600_000));
    const tmp = join(s3.directory, 'documents', 'tender-exchange', 'tmp');
    expect(existsSync(tmp) ? readdirSync(tmp).filter((name) => name.endsWith('._S3rver_object')) : []).toEqual([]);
    expect(objects().sort()).toEqual(kept.sort());
  });

  it("a download link is the gateway's, redirecting to a presigned link only as long as needed; nothing after its expiry, nor after the document was deleted", async () => {
    const tender = await createTender(scene.gateway.em(), scene.world, {});
    await addDocument(scene.gateway, broker, { tenderId: tender.id, kind: 'RISK' });
    const query = `query ($id: ID!) { tender(id: $id) { documents { downloadUrl } } }`;
    const early = (await graphql(scene.gateway, broker, query, { id: tender.id })).body.data.tender.documents[0].downloadUrl;
    expect(early.startsWith(`${scene.gateway.url}/integration/v1/document-links/`)).toBe(true);
    const redirect = await fetch(early, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(Number(new URL(redirect.headers.get('location')!).searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(60);
    expect((await fetch(early)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await fetch(early)).status).toBe(404);

    const fresh = (await graphql(scene.gateway, broker, query, { id: tender.id })).body.data.tender.documents[0].downloadUrl;
    expect((await fetch(fresh)).status).toBe(200);
    await deleteTenderDocuments(scene.gateway.em(), [tender.id]);
    await removeDocumentBytes(scene.gateway.em(), scene.gateway.app.documents);
    expect((await fetch(fresh)).status).toBe(404);
  });
});
