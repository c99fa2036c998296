import { request, type ClientRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { Document } from '../src/documents';
import { createTender, createWorld, type World } from './helpers/fixtures';
import { getJson, graphql, startGateway, tokenFor, type Gateway } from './helpers/gateway';
import { PDF, createUpload, holdDocuments, put } from './helpers/documents';
import { waitFor } from './helpers/simulator';

/**
 * Issue 37: what uploads may hold of the process (how many at once, how slow) and of a tender (each party's share of
 * its documents, counted until an upload's deadline, checked again when the bytes arrived), on the configured engine.
 */
const bigPdf = (size: number, fill = 0x20) => Buffer.concat([PDF, Buffer.alloc(size - PDF.length, fill)]);

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A PUT that sends its headers (declaring `bytes`) and `first` bytes of its body, then waits: `rest()` sends the others. */
function openUpload(url: string, bytes: Buffer, first: number): { req: ClientRequest; answer: Promise<Answer>; rest: () => void } {
  let req!: ClientRequest;
  const answer = new Promise<Answer>((resolve, reject) => {
    req = request(url, { method: 'PUT', agent: false, headers: { 'content-length': String(bytes.length) } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
  });
  answer.catch(() => undefined);
  req.flushHeaders();
  if (first > 0) req.write(bytes.subarray(0, first));
  return { req, answer, rest: () => req.end(bytes.subarray(first)) };
}

/** Sends `bytes` `perSecond` bytes a second (in ten steps a second) until answered. */
function tricklingPut(url: string, bytes: Buffer, perSecond: number): Promise<Answer> {
  const { req, answer } = openUpload(url, bytes, 0);
  let sent = 0;
  const step = Math.max(1, Math.floor(perSecond / 10));
  const timer = setInterval(() => {
    if (sent >= bytes.length) return clearInterval(timer);
    req.write(bytes.subarray(sent, sent + step), () => undefined);
    sent += step;
  }, 100);
  return answer.finally(() => {
    clearInterval(timer);
    req.destroy();
  });
}

const slotOf = (answer: Awaited<ReturnType<typeof createUpload>>) => {
  expect(answer.body.errors, JSON.stringify(answer.body.errors)).toBeUndefined();
  return answer.body.data.createDocumentUpload as { uploadUrl: string; document: { id: string } };
};

describe('uploads in flight: how many at once, and how slow', () => {
  let gateway: Gateway;
  let world: World;
  let broker: string;
  let otherBroker: string;

  beforeAll(async () => {
    gateway = await startGateway({
      dispatch: false,
      env: {
        DOCUMENT_UPLOAD_CONCURRENCY: '2',
        DOCUMENT_UPLOAD_CONCURRENCY_PER_CLIENT: '1',
        DOCUMENT_UPLOAD_MIN_RATE: '4096',
        DOCUMENT_UPLOAD_RATE_WINDOW: '1s',
      },
    });
    world = await createWorld(gateway.em());
    broker = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
    otherBroker = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[1].id });
  });

  afterAll(async () => {
    await gateway?.close();
  });

  it("an upload beyond the process's most at once is answered 503 with Retry-After before any of its body is sent, and its upload URL still works afterwards", async () => {
    const tender = await createTender(gateway.em(), world, {});
    const other = await createTender(gateway.em(), world, { broker: 1 });
    const bytes = bigPdf(64 * 1024);
    const first = slotOf(await createUpload(gateway, broker, { tenderId: tender.id, kind: 'RISK', filename: 'first.pdf' }, bytes));
    const second = slotOf(await createUpload(gateway, otherBroker, { tenderId: other.id, kind: 'RISK', filename: 'second.pdf' }, bytes));
    const third = slotOf(await createUpload(gateway, broker, { tenderId: tender.id, kind: 'RISK', filename: 'third.pdf' }, bytes));
    // Two uploads of two clients in flight: the process's most.
    const one = openUpload(first.uploadUrl, bytes, 32 * 1024);
    const two = openUpload(second.uploadUrl, bytes, 32 * 1024);
    await new Promise((resolve) => setTimeout(resolve, 300));

    // A third sends its headers only: the answer comes without a byte of its body.
    const refused = await openUpload(third.uploadUrl, bytes, 0).answer;
    expect(refused.status).toBe(503);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'SERVICE_UNAVAILABLE', detail: expect.stringContaining('still valid') });

    one.rest();
    two.rest();
    expect((await one.answer).status).toBe(200);
    expect((await two.answer).status).toBe(200);
    // Nothing of the refused upload was spent: its URL takes the bytes now.
    const later = await put(third.uploadUrl, bytes);
    expect(later.status, await later.clone().text()).toBe(200);
  });

  it("an API client's uploads beyond its most at once are answered 503 with Retry-After, while another client's upload goes through", async () => {
    const tender = await createTender(gateway.em(), world, {});
    const other = await createTender(gateway.em(), world, { broker: 1 });
    const bytes = bigPdf(64 * 1024, 0x21);
    const held = slotOf(await createUpload(gateway, broker, { tenderId: tender.id, kind: 'RISK', filename: 'held.pdf' }, bytes));
    const more = slotOf(await createUpload(gateway, broker, { tenderId: tender.id, kind: 'RISK', filename: 'more.pdf' }, bytes));
    const theirs = slotOf(await createUpload(gateway, otherBroker, { tenderId: other.id, kind: 'RISK', filename: 'theirs.pdf' }, bytes));
    const holding = openUpload(held.uploadUrl, bytes, 32 * 1024);
    await new Promise((resolve) => setTimeout(resolve, 300));

    const refused = await openUpload(more.uploadUrl, bytes, 0).answer;
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBeDefined();
    expect(JSON.parse(refused.body).detail).toContain('API client that created this upload slot');
    expect((await put(theirs.uploadUrl, bytes)).status).toBe(200);

    holding.rest();
    expect((await holding.answer).status).toBe(200);
    expect((await put(more.uploadUrl, bytes)).status).toBe(200);
  });

  it('an upload slower than the minimum rate is stopped with 408 saying so; nothing is stored and its slot is gone', async () => {
    const tender = await createTender(gateway.em(), world, {});
    const bytes = bigPdf(64 * 1024, 0x22);
    const slot = slotOf(await createUpload(gateway, broker, { tenderId: tender.id, kind: 'RISK', filename: 'slow.pdf' }, bytes));
    const started = Date.now();
    // 1 KiB/s against a minimum of 4 KiB/s over 1 s windows.
    const answer = await tricklingPut(slot.uploadUrl, bytes, 1024);
    expect(answer.status).toBe(408);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(answer.body)).toMatchObject({
      code: 'REQUEST_TIMEOUT',
      detail: expect.stringMatching(/slower than the minimum of 4096 bytes\/s over 1 s.*upload URL is spent.*createDocumentUpload/),
    });
    // Within a few windows (the check runs every second), not at the 30 s deadline.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await put(slot.uploadUrl, bytes)).status).toBe(404);
    // The slot goes as the stopped upload's stream ends, just after the answer.
    await waitFor('the slot to go', async () => (await gateway.em().count(Document, { id: slot.document.id })) === 0);
    const list = await getJson(gateway, `/api/v1/tenders/${tender.id}/documents`, broker);
    expect(list.body.payload).toEqual([]);
  });

  it('an upload at the minimum rate or faster is not stopped', async () => {
    const tender = await createTender(gateway.em(), world, {});
    const bytes = bigPdf(24 * 1024, 0x23);
    const slot = slotOf(await createUpload(gateway, broker, { tenderId: tender.id, kind: 'RISK', filename: 'steady.pdf' }, bytes));
    // 8 KiB/s for three seconds against a minimum of 4 KiB/s.
    const answer = await tricklingPut(slot.uploadUrl, bytes, 8 * 1024);
    expect(answer.status, answer.body).toBe(200);
  });
});

describe("a tender's capacity", () => {
  let gateway: Gateway;
  let world: World;
  let broker: string;

  beforeAll(async () => {
    gateway = await startGateway({ dispatch: false, env: { DOCUMENT_LINK_TTL: '2s' } });
    world = await createWorld(gateway.em());
    broker = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
  });

  afterAll(async () => {
    await gateway?.close();
  });

  it('an upload still running past its slot’s expiry keeps its place: the 100 documents of the broker side are not passed', async () => {
    const tender = await createTender(gateway.em(), world, {});
    await holdDocuments(gateway.em(), tender.id, 99);
    const bytes = bigPdf(64 * 1024, 0x24);
    const slot = slotOf(await createUpload(gateway, broker, { tenderId: tender.id, kind: 'RISK', filename: 'late.pdf' }, bytes));
    // The upload starts within the slot's 2 s and is still running when they are over.
    const running = openUpload(slot.uploadUrl, bytes, 32 * 1024);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const another = await createUpload(gateway, broker, { tenderId: tender.id, kind: 'RISK', filename: 'one-too-many.pdf' }, PDF);
    expect(another.body.errors?.[0].extensions.code).toBe('CONFLICT');
    running.rest();
    expect((await running.answer).status).toBe(200);
    expect(await gateway.em().count(Document, { tender: tender.id, state: 'AVAILABLE' as Document['state'] })).toBe(100);
  });

  it("an insurer's upload slot takes nothing once the tender closed: 404, nothing stored, nothing listed", async () => {
    const insurerId = world.insurers[0].id;
    const tender = await createTender(gateway.em(), world, { invited: [world.insurers[0]] });
    const { body: requested } = await graphql(
      gateway,
      broker,
      'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }',
      {
        input: {
          tenderId: tender.id,
          insurerIds: [insurerId],
          limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }],
          riskInformation: {},
        },
      },
    );
    expect(requested.errors, JSON.stringify(requested.errors)).toBeUndefined();
    const quoteRequestId = requested.data.requestQuotes[0].id;
    const insurer = await tokenFor(gateway, Role.INSURER, { insurerId });
    const bytes = bigPdf(16 * 1024, 0x25);
    const slot = slotOf(
      await createUpload(gateway, insurer, { tenderId: tender.id, kind: 'QUOTE', quoteRequestId, filename: 'slip.pdf' }, bytes),
    );
    const closed = await graphql(gateway, broker, 'mutation($id: ID!) { closeTender(tenderId: $id, reason: "withdrawn") { status } }', {
      id: tender.id,
    });
    expect(closed.body.data.closeTender.status).toBe('CLOSED');

    const answer = await put(slot.uploadUrl, bytes);
    expect(answer.status).toBe(404);
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await gateway.em().count(Document, { tender: tender.id })).toBe(0);
    const list = await getJson(gateway, `/api/v1/tenders/${tender.id}/documents`, broker);
    expect(list.body.payload).toEqual([]);
  });

  it("one insurer's unused upload slots take only its own share: the broker still adds documents, another insurer still adds its own", async () => {
    const [squatter, competitor] = world.insurers;
    const tender = await createTender(gateway.em(), world, { invited: [squatter, competitor] });
    const { body: requested } = await graphql(
      gateway,
      broker,
      'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id insurer { id } } }',
      {
        input: {
          tenderId: tender.id,
          insurerIds: [squatter.id, competitor.id],
          limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }],
          riskInformation: {},
        },
      },
    );
    const requestOf = (insurerId: string) =>
      (requested.data.requestQuotes as { id: string; insurer: { id: string } }[]).find((entry) => entry.insurer.id === insurerId)!.id;
    const squatterToken = await tokenFor(gateway, Role.INSURER, { insurerId: squatter.id });
    let taken = 0;
    let refusal: { extensions: { code: string }; message: string } | undefined;
    for (let i = 0; i < 100 && !refusal; i += 1) {
      const answer = await createUpload(
        gateway,
        squatterToken,
        { tenderId: tender.id, kind: 'QUOTE', quoteRequestId: requestOf(squatter.id), filename: `squat-${i}.pdf` },
        PDF,
      );
      if (answer.body.errors) refusal = answer.body.errors[0];
      else taken += 1;
    }
    expect(taken).toBe(20);
    expect(refusal?.extensions.code).toBe('CONFLICT');
    expect(refusal?.message).toContain('An insurer holds at most 20 documents of its own');

    // Meanwhile the broker adds its risk file, and the competitor its quote document.
    const risk = slotOf(await createUpload(gateway, broker, { tenderId: tender.id, kind: 'RISK', filename: 'risk.pdf' }, PDF));
    expect((await put(risk.uploadUrl, PDF)).status).toBe(200);
    const competitorToken = await tokenFor(gateway, Role.INSURER, { insurerId: competitor.id });
    const slip = slotOf(
      await createUpload(
        gateway,
        competitorToken,
        { tenderId: tender.id, kind: 'QUOTE', quoteRequestId: requestOf(competitor.id), filename: 'slip.pdf' },
        PDF,
      ),
    );
    expect((await put(slip.uploadUrl, PDF)).status).toBe(200);
  });
});
