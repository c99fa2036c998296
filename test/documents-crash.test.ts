import { existsSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import { afterAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { ApiClientService } from '../src/auth';
import { Document, createDocumentStore, sweepDocuments } from '../src/documents';
import { openDatabase } from '../src/database';
import { loadConfig } from '../src/platform/config';
import { createTender, createWorld } from './helpers/fixtures';
import { databaseUrlFor, removeDataDir } from './helpers/database';
import { freePort, spawnGateway, type GatewayProcess } from './helpers/gateway-process';
import { TEST_JWT_SECRET, createClient, graphql, requestToken, type Gateway } from './helpers/gateway';
import { QuoteRequest, QuoteRequestStatus } from '../src/quotes';
import { startScriptedInsurer, type ScriptedInsurer } from './helpers/scripted-insurer';
import { waitFor } from './helpers/simulator';
import { PDF, sha256 } from './helpers/documents';

/** `kill -9` of the gateway in the middle of an upload (issue 28, "Must hold"), on the configured engine. */
const dataDir = mkdtempSync(join(tmpdir(), 'tender-exchange-crash-'));
let orm: MikroORM | undefined;
let gateway: GatewayProcess | undefined;

afterAll(async () => {
  if (gateway?.alive()) await gateway.kill();
  await orm?.close();
  await removeDataDir(dataDir);
});

async function call(url: string, token: string, query: string, variables: Record<string, unknown>) {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  return ((await response.json()) as { data: any }).data;
}

const SLOT = `mutation ($input: CreateDocumentUploadInput!) { createDocumentUpload(input: $input) { uploadUrl document { id } } }`;

describe('kill -9 during an upload', () => {
  it('loses nothing acknowledged, shows no half document, and the sweeper removes what the cut upload left', async () => {
    const config = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      DATABASE_URL: await databaseUrlFor(dataDir),
      JWT_SECRET: TEST_JWT_SECRET,
    });
    orm = await openDatabase(config);
    const world = await createWorld(orm.em.fork());
    const tender = await createTender(orm.em.fork(), world, {});
    const { client, secret } = await new ApiClientService(orm.em.fork()).create({
      role: Role.BROKER,
      brokerCompanyId: world.brokers[0].id,
    });
    const port = await freePort();
    gateway = await spawnGateway(dataDir, port);
    const tokenResponse = await fetch(`${gateway.url}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ app_id: client.appId, secret }),
    });
    const token = ((await tokenResponse.json()) as { access_token: string }).access_token;

    // One upload acknowledged before the crash.
    const input = {
      tenderId: tender.id,
      kind: 'RISK',
      filename: 'kept.pdf',
      contentType: 'application/pdf',
      size: PDF.length,
      sha256: sha256(PDF),
    };
    const kept = (await call(gateway.url, token, SLOT, { input })).createDocumentUpload;
    expect((await fetch(kept.uploadUrl, { method: 'PUT', body: PDF })).status).toBe(200);

    // One cut off half way: 4 MiB declared, 2 MiB sent, then the gateway is killed.
    const big = Buffer.concat([PDF, Buffer.alloc(4 * 1024 * 1024 - PDF.length, 0x20)]);
    const cut = (await call(gateway.url, token, SLOT, { input: { ...input, filename: 'cut.pdf', size: big.length, sha256: sha256(big) } }))
      .createDocumentUpload;
    const upload = request(cut.uploadUrl, { method: 'PUT', headers: { 'content-length': String(big.length) } });
    upload.on('error', () => undefined);
    upload.write(big.subarray(0, 2 * 1024 * 1024));
    const tmp = join(dataDir, 'documents', 'tmp');
    for (let i = 0; i < 200 && !(existsSync(tmp) && readdirSync(tmp).length > 0); i += 1)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(readdirSync(tmp)).toHaveLength(1);
    await gateway.kill();
    upload.destroy();

    gateway = await spawnGateway(dataDir, port);
    const listed = await fetch(`${gateway.url}/api/v1/tenders/${tender.id}/documents`, { headers: { authorization: `Bearer ${token}` } });
    const payload = ((await listed.json()) as { payload: { _id: string; filename: string }[] }).payload;
    expect(payload.map((document) => document.filename)).toEqual(['kept.pdf']);
    const content = await fetch(`${gateway.url}/api/v1/tenders/${tender.id}/documents/${kept.document.id}/content`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(Buffer.from(await content.arrayBuffer())).toEqual(PDF);
    const half = await fetch(`${gateway.url}/api/v1/tenders/${tender.id}/documents/${cut.document.id}/content`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(half.status).toBe(404);
    // No file under the cut document's name: only its temporary one, which the sweeper removes with the slot.
    expect(existsSync(join(dataDir, 'documents', sha256(big).slice(0, 2), sha256(big)))).toBe(false);
    await gateway.kill();
    const later = new Date(Date.now() + 3_600_000);
    await sweepDocuments(
      orm.em.fork(),
      { store: createDocumentStore(config.documents.store), linkTtlMs: config.documents.linkTtlMs },
      later,
    );
    expect(readdirSync(tmp)).toEqual([]);
    expect((await orm.em.fork().find(Document, { tender: tender.id })).map((document) => document.filename)).toEqual(['kept.pdf']);
  });
});

describe('kill -9 during a quote document fetch', () => {
  it('shows no half document; after the restart the quote is fetched again with its document, once, and the sweeper removes the rest', async () => {
    const quoteDir = mkdtempSync(join(tmpdir(), 'tender-exchange-quote-crash-'));
    // Deadlines long enough to kill the gateway mid-fetch, a lease short enough for the restart to take over soon.
    const env = { QUOTE_TIMEOUT_MS: '4000', QUOTE_LEASE_MS: '5000' };
    const config = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: quoteDir,
      DATABASE_URL: await databaseUrlFor(quoteDir),
      JWT_SECRET: TEST_JWT_SECRET,
    });
    const db = await openDatabase(config);
    const port = await freePort();
    const target = { url: `http://127.0.0.1:${port}`, em: () => db.em.fork() } as unknown as Gateway;
    let scripted: ScriptedInsurer | undefined;
    let quoteGateway: GatewayProcess | undefined;
    try {
      const world = await createWorld(db.em.fork());
      const tender = await createTender(db.em.fork(), world, {});
      quoteGateway = await spawnGateway(quoteDir, port, env);
      scripted = await startScriptedInsurer(target);
      const big = Buffer.concat([PDF, Buffer.alloc(1024 * 1024, 0x20)]);
      scripted.serve('/slip.pdf', { body: big, type: 'application/pdf', stallAfter: 512 * 1024 });
      const broker = await requestToken(target, await createClient(target, Role.BROKER, { brokerCompanyId: world.brokers[0].id }));
      const asked = await graphql(target, broker, 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }', {
        input: {
          tenderId: tender.id,
          insurerIds: [scripted.insurer.id],
          limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }],
          riskInformation: {},
        },
      });
      expect(asked.body.errors).toBeUndefined();
      const id = await waitFor('the acknowledgement', async () => scripted!.ids().at(-1));
      const slip = { type: 'application/pdf', filename: 'slip.pdf', url: `${scripted.url}/slip.pdf`, sha256: sha256(big) };
      expect(
        await scripted.quote(id, { quote_options: [{ insurance_sum: 1_000_000, deductible: 10_000, premium: 900 }], documents: [slip] }),
      ).toBe(202);
      const tmp = join(quoteDir, 'documents', 'tmp');
      await waitFor('the fetch to be under way', async () => existsSync(tmp) && readdirSync(tmp).length > 0);
      await quoteGateway.kill();

      const list = async () =>
        (await fetch(`${target.url}/api/v1/tenders/${tender.id}/documents`, { headers: { authorization: `Bearer ${broker}` } }).then((r) =>
          r.json(),
        )) as {
          payload: { _id: string; sha256: string }[];
        };
      // The insurer serves the whole slip now; the restarted gateway takes the request over once the lease ran out.
      scripted.serve('/slip.pdf', { body: big, type: 'application/pdf' });
      quoteGateway = await spawnGateway(quoteDir, port, env);
      expect((await list()).payload).toEqual([]);
      await waitFor('the quote after the restart', async () => {
        const row = await db.em.fork().findOneOrFail(QuoteRequest, { tender: tender.id });
        return row.status === QuoteRequestStatus.QUOTED;
      });
      const [document] = (await list()).payload;
      expect((await list()).payload).toHaveLength(1);
      const content = await fetch(`${target.url}/api/v1/tenders/${tender.id}/documents/${document._id}/content`, {
        headers: { authorization: `Bearer ${broker}` },
      });
      expect(sha256(Buffer.from(await content.arrayBuffer()))).toBe(sha256(big));
      await quoteGateway.kill();
      // The killed attempt's slot and temporary file go with the next sweep; the quote's document stays.
      await sweepDocuments(
        db.em.fork(),
        { store: createDocumentStore(config.documents.store), linkTtlMs: config.documents.linkTtlMs },
        new Date(Date.now() + 3_600_000),
      );
      expect(readdirSync(tmp)).toEqual([]);
      expect((await db.em.fork().find(Document, { tender: tender.id })).map((row) => row.id)).toEqual([document._id]);
    } finally {
      await scripted?.close();
      if (quoteGateway?.alive()) await quoteGateway.kill();
      await db.close();
      await removeDataDir(quoteDir);
    }
  });
});
