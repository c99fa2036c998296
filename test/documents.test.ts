import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { Document, deleteTenderDocuments, removeDocumentBytes, sweepDocuments } from '../src/documents';
import { TenderStatus } from '../src/tenders';
import { QuoteOption } from '../src/quotes';
import { createTender, createWorld, receivedQuote } from './helpers/fixtures';
import { getJson, graphql, startGateway, tokenFor, type Gateway } from './helpers/gateway';
import { withGateway } from './helpers/scene';
import { PDF, PNG, addDocument, createUpload, put, sha256 } from './helpers/documents';

let broker: string;
let internal: string;

const scene = withGateway({ per: 'file', dispatch: false, tender: (world) => ({ invited: [world.insurers[0]] }) });

beforeAll(async () => {
  broker = await scene.token(Role.BROKER);
  internal = await scene.token(Role.INTERNAL);
});

const documentsOf = (tenderId: string, token: string, api = '/api/v1') =>
  getJson(scene.gateway, `${api}/tenders/${tenderId}/documents`, token);

describe('adding a document: an upload slot, then one PUT of the bytes', () => {
  it('a broker adds a risk document; it is listed, and its content comes back as an attachment with its SHA-256 as ETag', async () => {
    const id = await addDocument(scene.gateway, broker, { tenderId: scene.tender.id, kind: 'RISK', filename: 'questionnaire.pdf' });
    const list = await documentsOf(scene.tender.id, broker);
    expect(list.status).toBe(200);
    expect(list.body.metadata.count).toBe(String(list.body.payload.length));
    const entry = list.body.payload.find((document: { _id: string }) => document._id === id);
    expect(entry).toEqual({
      _id: id,
      kind: 'RISK',
      filename: 'questionnaire.pdf',
      content_type: 'application/pdf',
      size: PDF.length,
      sha256: sha256(PDF),
      created_at: expect.any(String),
      quote_request_id: null,
    });

    const content = await fetch(`${scene.gateway.url}/api/v1/tenders/${scene.tender.id}/documents/${id}/content`, {
      headers: { authorization: `Bearer ${broker}` },
    });
    expect(content.status).toBe(200);
    expect(content.headers.get('content-type')).toBe('application/pdf');
    expect(content.headers.get('content-disposition')).toBe(`attachment; filename="questionnaire.pdf"; filename*=UTF-8''questionnaire.pdf`);
    expect(content.headers.get('etag')).toBe(`"${sha256(PDF)}"`);
    expect(Buffer.from(await content.arrayBuffer())).toEqual(PDF);

    const again = await fetch(`${scene.gateway.url}/api/v1/tenders/${scene.tender.id}/documents/${id}/content`, {
      headers: { authorization: `Bearer ${broker}`, 'if-none-match': `"${sha256(PDF)}"` },
    });
    expect(again.status).toBe(304);
  });

  it('GraphQL shows Tender.documents with a download link that needs no bearer token', async () => {
    const id = await addDocument(
      scene.gateway,
      broker,
      { tenderId: scene.tender.id, kind: 'OTHER', filename: 'loss-history.png', contentType: 'image/png' },
      PNG,
    );
    const { body } = await graphql(
      scene.gateway,
      broker,
      `
        query ($id: ID!) {
          tender(id: $id) {
            documents {
              id
              kind
              contentType
              downloadUrl
            }
          }
        }
      `,
      {
        id: scene.tender.id,
      },
    );
    const document = body.data.tender.documents.find((candidate: { id: string }) => candidate.id === id);
    expect(document).toMatchObject({ kind: 'OTHER', contentType: 'image/png' });
    const link = await fetch(document.downloadUrl);
    expect(link.status).toBe(200);
    expect(Buffer.from(await link.arrayBuffer())).toEqual(PNG);
  });

  it('bytes that do not match the declared SHA-256 answer 400, store nothing, and the upload URL is spent', async () => {
    const before = (await documentsOf(scene.tender.id, broker)).body.payload.length;
    const slot = await createUpload(scene.gateway, broker, { tenderId: scene.tender.id, kind: 'RISK' }, PDF, {
      sha256: sha256('something else'),
    });
    const url = slot.body.data.createDocumentUpload.uploadUrl;
    const response = await put(url, PDF);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/problem\+json/);
    expect((await documentsOf(scene.tender.id, broker)).body.payload.length).toBe(before);
    expect(await scene.gateway.em().count(Document, { id: slot.body.data.createDocumentUpload.document.id })).toBe(0);
    expect((await put(url, PDF)).status).toBe(404);
  });

  it('bytes of another size than declared answer 400', async () => {
    const slot = await createUpload(scene.gateway, broker, { tenderId: scene.tender.id, kind: 'RISK' }, PDF, { size: PDF.length + 1 });
    expect((await put(slot.body.data.createDocumentUpload.uploadUrl, PDF)).status).toBe(400);
  });

  it('bytes that are not of the declared content type are refused (415)', async () => {
    const slot = await createUpload(
      scene.gateway,
      broker,
      { tenderId: scene.tender.id, kind: 'RISK', contentType: 'image/png', filename: 'x.png' },
      PDF,
    );
    expect((await put(slot.body.data.createDocumentUpload.uploadUrl, PDF)).status).toBe(415);
    const text = Buffer.from('name;sum\nAcme;1000\n');
    const csv = await createUpload(
      scene.gateway,
      broker,
      { tenderId: scene.tender.id, kind: 'RISK', contentType: 'text/csv', filename: 'sums.csv' },
      text,
    );
    expect((await put(csv.body.data.createDocumentUpload.uploadUrl, text)).status).toBe(200);
    const binary = await createUpload(
      scene.gateway,
      broker,
      { tenderId: scene.tender.id, kind: 'RISK', contentType: 'text/plain', filename: 'a.txt' },
      PNG,
    );
    expect((await put(binary.body.data.createDocumentUpload.uploadUrl, PNG)).status).toBe(415);
  });

  it('an unknown upload URL answers 404, and a content type outside the list, or a size over the maximum, is BAD_USER_INPUT', async () => {
    expect((await put(`${scene.gateway.url}/integration/v1/document-uploads/not-a-token`, PDF)).status).toBe(404);
    const exe = await createUpload(
      scene.gateway,
      broker,
      { tenderId: scene.tender.id, kind: 'RISK', contentType: 'application/x-msdownload' },
      PDF,
    );
    expect(exe.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const huge = await createUpload(scene.gateway, broker, { tenderId: scene.tender.id, kind: 'RISK' }, PDF, {
      size: 20 * 1024 * 1024 + 1,
    });
    expect(huge.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('a file name with a path or quotes is made safe; one with control characters is refused', async () => {
    const refused = await createUpload(
      scene.gateway,
      broker,
      { tenderId: scene.tender.id, kind: 'RISK', filename: 'pass\u0007wd.pdf' },
      PDF,
    );
    expect(refused.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const id = await addDocument(scene.gateway, broker, { tenderId: scene.tender.id, kind: 'RISK', filename: '../../etc/pass*wd"ü.pdf' });
    const entry = (await documentsOf(scene.tender.id, broker)).body.payload.find((document: { _id: string }) => document._id === id);
    expect(entry.filename).toBe('pass_wd_ü.pdf');
    const content = await fetch(`${scene.gateway.url}/api/v1/tenders/${scene.tender.id}/documents/${id}/content`, {
      headers: { authorization: `Bearer ${broker}` },
    });
    expect(content.headers.get('content-disposition')).toBe(`attachment; filename="pass_wd__.pdf"; filename*=UTF-8''pass_wd_%C3%BC.pdf`);
    await content.arrayBuffer();
  });

  it('a broker may not add a POLICY document; an insurer adds QUOTE documents for its own quote request only', async () => {
    const denied = await createUpload(scene.gateway, broker, { tenderId: scene.tender.id, kind: 'POLICY' }, PDF);
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const quoted = await createTender(scene.gateway.em(), scene.world, {});
    const option = await receivedQuote(scene.gateway.em(), quoted, scene.world.insurers[1]);
    const request = await scene.gateway.em().findOneOrFail(QuoteOption, { id: option.id }, { populate: ['quoteRequest'] });
    const own = await tokenFor(scene.gateway, Role.INSURER, { insurerId: scene.world.insurers[1].id });
    const id = await addDocument(scene.gateway, own, { tenderId: quoted.id, kind: 'QUOTE', quoteRequestId: request.quoteRequest.id });
    const list = await documentsOf(quoted.id, own, '/public/v1');
    expect(
      list.body.payload.map((document: { _id: string; quote_request_id: string }) => [document._id, document.quote_request_id]),
    ).toEqual([[id, request.quoteRequest.id]]);
    await receivedQuote(scene.gateway.em(), quoted, scene.world.insurers[2]);
    const other = await tokenFor(scene.gateway, Role.INSURER, { insurerId: scene.world.insurers[2].id });
    const foreign = await createUpload(
      scene.gateway,
      other,
      { tenderId: quoted.id, kind: 'QUOTE', quoteRequestId: request.quoteRequest.id },
      PDF,
    );
    expect(foreign.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('a tender holds at most 100 documents, upload slots included', async () => {
    const full = await createTender(scene.gateway.em(), scene.world, {});
    for (let i = 0; i < 100; i += 1) {
      const slot = await createUpload(scene.gateway, internal, { tenderId: full.id, kind: 'OTHER' }, PDF);
      expect(slot.body.errors).toBeUndefined();
    }
    const refused = await createUpload(scene.gateway, internal, { tenderId: full.id, kind: 'OTHER' }, PDF);
    expect(refused.body.errors[0].extensions.code).toBe('CONFLICT');
  });
});

describe('links and upload URLs cannot be reused', () => {
  it('a download link opens only its own document, and nothing once the document is deleted', async () => {
    const own = await createTender(scene.gateway.em(), scene.world, {});
    const id = await addDocument(scene.gateway, broker, { tenderId: own.id, kind: 'RISK' });
    const { body } = await graphql(
      scene.gateway,
      broker,
      `
        query ($id: ID!) {
          tender(id: $id) {
            documents {
              id
              downloadUrl
            }
          }
        }
      `,
      { id: own.id },
    );
    const link: string = body.data.tender.documents[0].downloadUrl;
    expect((await fetch(link)).status).toBe(200);
    const [documentId, expiry, role, party, mac] = link.split('/').pop()!.split('.');
    expect([documentId, role, party]).toEqual([id, 'broker', scene.world.brokers[0].id]);
    expect((await fetch(link.replace(`${documentId}.${expiry}`, `${documentId}.${Number(expiry) + 60_000}`))).status).toBe(404);
    // Whom the link was given to is signed too: another broker company's name in it opens nothing.
    expect((await fetch(link.replace(`.broker.${party}.`, `.broker.${scene.world.brokers[1].id}.`))).status).toBe(404);
    const other = await addDocument(scene.gateway, broker, { tenderId: own.id, kind: 'RISK' }, PNG.subarray(0) && PDF);
    expect((await fetch(link.replace(documentId, other))).status).toBe(404);
    expect(mac.length).toBe(43);
    await deleteTenderDocuments(scene.gateway.em(), [own.id]);
    await removeDocumentBytes(scene.gateway.em(), scene.gateway.app.documents);
    expect((await fetch(link)).status).toBe(404);
    expect((await documentsOf(own.id, broker)).body.payload).toEqual([]);
  });
});

describe('expiry', () => {
  let short: Gateway;
  beforeAll(async () => {
    short = await startGateway({ dispatch: false, env: { DOCUMENT_LINK_TTL: '1s' } });
  });
  afterAll(async () => {
    await short?.close();
  });

  it('an upload URL and a download link stop working once expired; the sweeper removes the expired slot', async () => {
    const shortWorld = await createWorld(short.em());
    const own = await createTender(short.em(), shortWorld, {});
    const token = await tokenFor(short, Role.BROKER, { brokerCompanyId: shortWorld.brokers[0].id });
    const id = await addDocument(short, token, { tenderId: own.id, kind: 'RISK' });
    const { body } = await graphql(
      short,
      token,
      `
        query ($id: ID!) {
          tender(id: $id) {
            documents {
              id
              downloadUrl
            }
          }
        }
      `,
      { id: own.id },
    );
    const slot = await createUpload(short, token, { tenderId: own.id, kind: 'RISK' }, PDF);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await fetch(body.data.tender.documents[0].downloadUrl)).status).toBe(404);
    expect((await put(slot.body.data.createDocumentUpload.uploadUrl, PDF)).status).toBe(404);
    // The app's sweeper runs every DOCUMENT_LINK_TTL; the expired slot is gone by the next run (or this one).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await sweepDocuments(short.em(), short.app.documents);
    expect((await short.em().find(Document, { tender: own.id })).map((document) => document.id)).toEqual([id]);
  });
});

describe('the policy document', () => {
  it('the winning insurer adds the POLICY document and names it when confirming; policy_documentation shows document_id', async () => {
    const won = await createTender(scene.gateway.em(), scene.world, {
      status: TenderStatus.SUCCESSFUL,
      invited: [scene.world.insurers[0]],
      awardedInsurer: scene.world.insurers[0],
    });
    const winner = await tokenFor(scene.gateway, Role.INSURER, { insurerId: scene.world.insurers[0].id });
    const id = await addDocument(scene.gateway, winner, { tenderId: won.id, kind: 'POLICY', filename: 'policy.pdf' });
    const risk = await addDocument(scene.gateway, broker, { tenderId: won.id, kind: 'RISK' });
    const wrong = await fetch(`${scene.gateway.url}/integration/v1/tenders/${won.id}/policy-documentation`, {
      method: 'POST',
      headers: { authorization: `Bearer ${winner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ policy_number: 'POL-1', document_id: risk }),
    });
    expect(wrong.status).toBe(400);
    const confirmed = await fetch(`${scene.gateway.url}/integration/v1/tenders/${won.id}/policy-documentation`, {
      method: 'POST',
      headers: { authorization: `Bearer ${winner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ policy_number: 'POL-1', document_id: id }),
    });
    expect(confirmed.status).toBe(200);
    expect(((await confirmed.json()) as { policy_documentation: unknown }).policy_documentation).toMatchObject({
      status: 'CONFIRMED',
      policy_number: 'POL-1',
      document_id: id,
    });
    const read = await getJson(scene.gateway, `/api/v1/tenders/${won.id}`, broker);
    expect(read.body.policy_documentation.document_id).toBe(id);
    const loser = await tokenFor(scene.gateway, Role.INSURER, { insurerId: scene.world.insurers[1].id });
    expect((await createUpload(scene.gateway, loser, { tenderId: won.id, kind: 'POLICY' }, PDF)).body.errors[0].extensions.code).toBe(
      'NOT_FOUND',
    );
  });
});
