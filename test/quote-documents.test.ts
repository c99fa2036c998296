import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { Document } from '../src/documents';
import { FAST_DISPATCH_ENV, getJson, graphql, tokenFor } from './helpers/gateway';
import { withGateway, type Scene } from './helpers/scene';
import { PDF, PNG, sha256 } from './helpers/documents';
import { startS3Server, type S3Server } from './helpers/s3-server';
import { startScriptedInsurer, type ScriptedInsurer } from './helpers/scripted-insurer';
import { startSimulatedInsurers, waitFor, type SimulatedInsurers } from './helpers/simulator';

const LIMIT = { insurance_sum: 1_000_000, deductible: 10_000 };
const REQUESTS = `query($id: ID!) { quoteRequests(tenderId: $id) { id status failureReason failureDetail insurer { id } } }`;

let broker: string;
let scripted: ScriptedInsurer | undefined;
let sims: SimulatedInsurers | undefined;
let s3: S3Server | undefined;

const scene = withGateway({ env: FAST_DISPATCH_ENV, tender: true, start: 'manual', setUp: setUpScene });
const setUp = (env: Record<string, string> = {}) => scene.start(env);

async function setUpScene(scene: Scene) {
  broker = await scene.token(Role.BROKER);
}

async function requestQuotes(insurerId: string) {
  const { body } = await graphql(scene.gateway, broker, 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }', {
    input: {
      tenderId: scene.tender.id,
      insurerIds: [insurerId],
      limits: [{ insuranceSum: LIMIT.insurance_sum, deductible: LIMIT.deductible }],
      riskInformation: {},
    },
  });
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
}

const settled = () =>
  waitFor('the quote request to settle', async () => {
    const { body } = await graphql(scene.gateway, broker, REQUESTS, { id: scene.tender.id });
    const [request] = body.data.quoteRequests;
    return ['QUOTED', 'DECLINED', 'FAILED'].includes(request?.status) && request;
  });

/** The broker's list of the tender's documents (REST). */
const listed = async () => (await getJson(scene.gateway, `/api/v1/tenders/${scene.tender.id}/documents`, broker)).body.payload as any[];

async function content(id: string): Promise<Buffer> {
  const response = await fetch(`${scene.gateway.url}/api/v1/tenders/${scene.tender.id}/documents/${id}/content`, {
    headers: { authorization: `Bearer ${broker}` },
  });
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

/** Asks the scripted insurer for a quote listing `documents`, and calls back; answers the settled request. */
async function quoteListing(documents: unknown[]) {
  await requestQuotes(scripted!.insurer.id);
  const id = await waitFor('the acknowledgement', async () => scripted!.ids().at(-1));
  expect(await scripted!.quote(id, { quote_options: [{ ...LIMIT, premium: 900 }], documents })).toBe(202);
  return settled();
}

const slip = (path: string, bytes = PDF, type = 'application/pdf') => ({
  type,
  filename: 'quote-slip.pdf',
  url: `${scripted!.url}${path}`,
  sha256: sha256(bytes),
});

describe('quote documents an insurer system lists in its quote', () => {
  it('the simulator quote with its slip: QUOTED, the slip listed for the broker and the insurer, downloadable byte for byte', async () => {
    await setUp();
    sims = scene.closes(await startSimulatedInsurers(scene.gateway, [{ name: 'Anchor Insurance', behaviour: 'quote-document' }]));
    await requestQuotes(sims.insurers[0].id);
    const request = await settled();
    expect(request.status).toBe('QUOTED');
    const [document] = await listed();
    expect(document).toMatchObject({ kind: 'QUOTE', content_type: 'application/pdf', quote_request_id: request.id });
    expect(document.filename).toMatch(/^quote-slip-.+\.pdf$/);
    const bytes = await content(document._id);
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(sha256(bytes)).toBe(document.sha256);
    expect(bytes.length).toBe(document.size);

    const insurer = await tokenFor(scene.gateway, Role.INSURER, { insurerId: sims.insurers[0].id });
    const theirs = await getJson(scene.gateway, `/public/v1/tenders/${scene.tender.id}/documents`, insurer);
    expect(theirs.body.payload.map((entry: any) => entry._id)).toEqual([document._id]);
  });

  it('with the S3 store: the slip lands in the bucket and its content link answers its bytes', async () => {
    s3 = scene.closes(await startS3Server());
    await setUp(s3.env);
    sims = scene.closes(await startSimulatedInsurers(scene.gateway, [{ name: 'Anchor Insurance', behaviour: 'quote-document' }]));
    await requestQuotes(sims.insurers[0].id);
    expect((await settled()).status).toBe('QUOTED');
    const [document] = await listed();
    const objects = readdirSync(join(s3.directory, 'documents', 'tender-exchange')).filter((name) => name.endsWith('._S3rver_object'));
    expect(objects).toContain(`${document._id}._S3rver_object`);
    const redirect = await fetch(`${scene.gateway.url}/api/v1/tenders/${scene.tender.id}/documents/${document._id}/content`, {
      headers: { authorization: `Bearer ${broker}` },
      redirect: 'manual',
    });
    expect(redirect.status).toBe(302);
    const bytes = Buffer.from(await (await fetch(redirect.headers.get('location')!)).arrayBuffer());
    expect(sha256(bytes)).toBe(document.sha256);
  });

  it('a document that fails once (503) is fetched again with the quote: in the end each listed document exists once', async () => {
    await setUp();
    scripted = scene.closes(await startScriptedInsurer(scene.gateway));
    scripted.serve('/a.pdf', { body: PDF });
    scripted.serve('/b.png', { status: 503, body: Buffer.from('busy') }, { body: PNG, type: 'image/png' });
    const request = await quoteListing([slip('/a.pdf'), { ...slip('/b.png', PNG, 'image/png'), filename: 'terms.png' }]);
    expect(request.status).toBe('QUOTED');
    expect((await listed()).map((document) => document.filename)).toEqual(['quote-slip.pdf', 'terms.png']);
    // Nothing of the failed attempt remains: no second row, visible or not.
    expect(await scene.gateway.em().count(Document, { tender: scene.tender.id })).toBe(2);
  });

  it('an insurer that lists no documents sees no change: QUOTED, no documents', async () => {
    await setUp();
    scripted = scene.closes(await startScriptedInsurer(scene.gateway));
    expect((await quoteListing([])).status).toBe('QUOTED');
    expect(await listed()).toEqual([]);
  });

  const failures: [string, (quote: ScriptedInsurer) => unknown[], string, Record<string, string>?][] = [
    ['the wrong SHA-256', () => [{ ...slip('/a.pdf'), sha256: sha256('other bytes') }], 'insurer sent an invalid quote document'],
    ['bytes not of the declared type', () => [{ ...slip('/a.pdf'), type: 'image/png' }], 'insurer sent an invalid quote document'],
    ['a type that is not allowed', () => [{ ...slip('/a.pdf'), type: 'application/zip' }], 'insurer sent an invalid quote document'],
    ['a file name with a path', () => [{ ...slip('/a.pdf'), filename: '../../etc/passwd' }], 'insurer sent an invalid quote document'],
    ['no Content-Length', () => [slip('/chunked.pdf')], 'insurer sent an invalid quote document'],
    ['a URL that is not http(s)', () => [{ ...slip('/a.pdf'), url: 'file:///etc/passwd' }], 'insurer address not allowed'],
    ['an answer of 404', () => [slip('/missing.pdf')], 'insurer answered 404'],
    ['more bytes than DOCUMENT_MAX_BYTES', () => [slip('/a.pdf')], 'insurer answer too large', { DOCUMENT_MAX_BYTES: '64' }],
    [
      'an unreachable address (retried, then given up)',
      () => [{ ...slip('/a.pdf'), url: 'http://127.0.0.1:9/a.pdf' }],
      'insurer unreachable (gave up after 4 attempts)',
    ],
    ['a malformed list', () => [{ filename: 'x.pdf' }], 'insurer sent an invalid quote document'],
  ];
  for (const [what, documents, reason, env] of failures) {
    it(`a document with ${what} fails the quote (${reason}) and leaves no document`, async () => {
      await setUp(env);
      scripted = scene.closes(await startScriptedInsurer(scene.gateway));
      scripted.serve('/a.pdf', { body: PDF });
      scripted.serve('/chunked.pdf', { body: PDF, chunked: true });
      const request = await quoteListing(documents(scripted));
      expect(request).toMatchObject({ status: 'FAILED', failureReason: reason });
      expect(await listed()).toEqual([]);
      expect(await scene.gateway.em().count(Document, { tender: scene.tender.id })).toBe(0);
    });
  }
});

describe("quote documents and each insurer's share of the tender's documents", () => {
  const OF_TENDER = `query($id: ID!) { quoteRequests(tenderId: $id) { id status failureReason lastError insurer { id } } }`;
  const requestOf = async (insurerId: string) => {
    const { body } = await graphql(scene.gateway, broker, OF_TENDER, { id: scene.tender.id });
    return (body.data.quoteRequests as { id: string; status: string; insurer: { id: string } }[]).find(
      (request) => request.insurer.id === insurerId,
    )!;
  };
  const settledOf = (insurerId: string) =>
    waitFor('the quote request to settle', async () => {
      const request = await requestOf(insurerId);
      return ['QUOTED', 'DECLINED', 'FAILED'].includes(request?.status) && request;
    });
  /** As many QUOTE upload slots as the insurer may open for its request, up to 100; answers how many it got. */
  async function squat(insurerId: string): Promise<number> {
    const token = await tokenFor(scene.gateway, Role.INSURER, { insurerId });
    const quoteRequestId = (await requestOf(insurerId)).id;
    for (let taken = 0; taken < 100; taken += 1) {
      const { body } = await graphql(
        scene.gateway,
        token,
        'mutation($input: CreateDocumentUploadInput!) { createDocumentUpload(input: $input) { uploadUrl } }',
        {
          input: {
            tenderId: scene.tender.id,
            kind: 'QUOTE',
            quoteRequestId,
            filename: `squat-${taken}.pdf`,
            contentType: 'application/pdf',
            size: PDF.length,
            sha256: sha256(PDF),
          },
        },
      );
      if (body.errors) {
        expect(body.errors[0].extensions.code).toBe('CONFLICT');
        return taken;
      }
    }
    return 100;
  }

  it("another insurer's unused upload slots do not fail a quote that lists a document: QUOTED, its document listed", async () => {
    await setUp();
    const squatter = scene.closes(await startScriptedInsurer(scene.gateway, 'Squatter Insurance'));
    try {
      await requestQuotes(squatter.insurer.id);
      await waitFor('the squatter acknowledged', async () => squatter.ids().at(-1));
      const squatted = await squat(squatter.insurer.id);

      scripted = scene.closes(await startScriptedInsurer(scene.gateway));
      scripted.serve('/a.pdf', { body: PDF });
      await requestQuotes(scripted.insurer.id);
      const id = await waitFor('the acknowledgement', async () => scripted!.ids().at(-1));
      expect(await scripted.quote(id, { quote_options: [{ ...LIMIT, premium: 900 }], documents: [slip('/a.pdf')] })).toBe(202);
      const request = await settledOf(scripted.insurer.id);
      expect(request).toMatchObject({ status: 'QUOTED', lastError: null });
      expect((await listed()).map((document) => document.filename)).toEqual(['quote-slip.pdf']);
      // The squatter's slots took its own share, no more.
      expect(squatted).toBe(20);
    } finally {
      await squatter.close();
    }
  });

  it('an insurer whose own share is full still has its quote stored: QUOTED without the documents, the refusal in lastError', async () => {
    await setUp();
    scripted = scene.closes(await startScriptedInsurer(scene.gateway));
    scripted.serve('/a.pdf', { body: PDF });
    await requestQuotes(scripted.insurer.id);
    const id = await waitFor('the acknowledgement', async () => scripted!.ids().at(-1));
    expect(await squat(scripted.insurer.id)).toBe(20);
    expect(await scripted.quote(id, { quote_options: [{ ...LIMIT, premium: 900 }], documents: [slip('/a.pdf')] })).toBe(202);
    const request = await settledOf(scripted.insurer.id);
    expect(request).toMatchObject({
      status: 'QUOTED',
      failureReason: null,
      lastError: 'quote documents refused: the insurer holds its most documents on this tender',
    });
    expect(await listed()).toEqual([]);
  });
});
