import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { Role } from '../src/access';
import { Insurer } from '../src/insurers';
import { QuoteOption, QuoteRequest, QuoteRequestStatus } from '../src/quotes';
import { SubjectivityStage } from '../src/quotes/quote-request-status';
import { Tender } from '../src/tenders';
import { createTender, createWorld, receivedQuote, type World } from './helpers/fixtures';
import { getJson, graphql, startGateway, tokenFor, type Gateway } from './helpers/gateway';
import { sha256 } from './helpers/documents';
import { startS3Server, type S3Server } from './helpers/s3-server';

/**
 * The advice export (issue 29, item 4): the comparison a broker showed its client, as an ADVICE document whose SHA-256
 * is in the tender's history. The content's one time is the proposal's state (its last change, `STATE_AT` here); the
 * export's own time (the gateway's clock, `MADE_AT` unless a test moves it) is only in the history entry.
 */
const MADE_AT = '2026-03-02T09:30:00.000Z';
const STATE_AT = '2026-03-01T08:00:00.000Z';
let clock = new Date(MADE_AT);

const EXPORT = /* GraphQL */ `
  mutation ($tenderId: ID!, $format: AdviceFormat!) {
    exportProposal(tenderId: $tenderId, format: $format) {
      sha256
      document {
        id
        kind
        filename
        contentType
        size
        sha256
        downloadUrl
        addedByRole
      }
    }
  }
`;

const HISTORY = /* GraphQL */ `
  query ($id: ID!) {
    tender(id: $id) {
      history {
        at
        actor
        actorRole
        reason
        adviceExport {
          format
          documentId
          sha256
        }
      }
    }
  }
`;

/** The first page's text, as a reader extracts it (pdf.js, Mozilla's renderer). */
async function firstPageText(bytes: Buffer): Promise<string> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const pdf = await pdfjs.getDocument({ data: new Uint8Array(bytes), useSystemFonts: false }).promise;
  const content = await (await pdf.getPage(1)).getTextContent();
  const text = content.items.map((item) => ('str' in item ? item.str : '')).join(' ');
  await pdf.destroy();
  return text.replace(/\s+/g, ' ');
}

describe('exportProposal', () => {
  let gateway: Gateway;
  let world: World;
  let tender: Tender;
  let broker: string;
  let internal: string;
  let otherBroker: string;
  let insurer: string;
  let mueller: Insurer;

  const exportAs = async (token: string, format: 'PDF' | 'CSV' | 'JSON', tenderId = tender.id) =>
    graphql(gateway, token, EXPORT, { tenderId, format });

  /** The stored bytes, through the broker API's document content route. */
  const content = async (documentId: string, token = broker, api = '/api/v1') => {
    const response = await fetch(`${gateway.url}${api}/tenders/${tender.id}/documents/${documentId}/content`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: response.status, type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
  };

  beforeAll(async () => {
    gateway = await startGateway({ dispatch: false, clock: () => clock });
    world = await createWorld(gateway.em());
    const em = gateway.em();
    mueller = em.create(Insurer, { name: 'Müller Versicherung', quoteApiUrl: 'http://127.0.0.1:1/mueller', createdAt: new Date() });
    await em.flush();
    const [alpha, beta, gamma] = world.insurers;
    tender = await createTender(gateway.em(), world, { invited: [] });
    await receivedQuote(gateway.em(), tender, alpha, 1234.5);
    const muellerOption = await receivedQuote(gateway.em(), tender, mueller, 987.65);
    await gateway
      .em()
      .nativeUpdate(
        QuoteOption,
        { id: muellerOption.id },
        { subjectivities: [{ text: 'Sprinkleranlage geprüft', stage: SubjectivityStage.PRE_BIND }] },
      );
    const muellerRequest = (await gateway.em().findOneOrFail(QuoteOption, { id: muellerOption.id })).quoteRequest.id;
    await gateway.em().nativeUpdate(QuoteRequest, { id: muellerRequest }, { validUntil: new Date('2026-04-30T22:00:00.000Z') });
    const declined = await receivedQuote(gateway.em(), tender, beta, 1);
    const declinedRequest = (await gateway.em().findOneOrFail(QuoteOption, { id: declined.id })).quoteRequest.id;
    await gateway.em().nativeDelete(QuoteOption, { id: declined.id });
    await gateway
      .em()
      .nativeUpdate(
        QuoteRequest,
        { id: declinedRequest },
        { status: QuoteRequestStatus.DECLINED, underwriterReason: 'Outside our appetite' },
      );
    const failed = await receivedQuote(gateway.em(), tender, gamma, 1);
    const failedRequest = (await gateway.em().findOneOrFail(QuoteOption, { id: failed.id })).quoteRequest.id;
    await gateway.em().nativeDelete(QuoteOption, { id: failed.id });
    await gateway.em().nativeUpdate(QuoteRequest, { id: failedRequest }, { status: QuoteRequestStatus.FAILED, failureReason: 'TIMEOUT' });
    // The proposal's state: the tender last changed before its quotes, the latest of which changed at STATE_AT.
    await gateway.em().nativeUpdate(Tender, { id: tender.id }, { updatedAt: new Date('2026-02-27T12:00:00.000Z') });
    await gateway.em().nativeUpdate(QuoteRequest, { tender: tender.id }, { updatedAt: new Date('2026-02-28T12:00:00.000Z') });
    await gateway.em().nativeUpdate(QuoteRequest, { id: declinedRequest }, { updatedAt: new Date(STATE_AT) });

    broker = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
    otherBroker = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[1].id });
    internal = await tokenFor(gateway, Role.INTERNAL);
    insurer = await tokenFor(gateway, Role.INSURER, { insurerId: alpha.id });
  });

  afterAll(async () => {
    await gateway?.close();
  });

  it('the same proposal exported twice at the same time gives byte-identical documents, in every format', async () => {
    for (const format of ['PDF', 'CSV', 'JSON'] as const) {
      const first = await exportAs(broker, format);
      const second = await exportAs(broker, format);
      expect(first.body.errors, JSON.stringify(first.body.errors)).toBeUndefined();
      expect(second.body.data.exportProposal.sha256).toBe(first.body.data.exportProposal.sha256);
      expect(second.body.data.exportProposal.document.id).not.toBe(first.body.data.exportProposal.document.id);
      const [a, b] = [
        await content(first.body.data.exportProposal.document.id),
        await content(second.body.data.exportProposal.document.id),
      ];
      expect(a.bytes.equals(b.bytes)).toBe(true);
      expect(sha256(a.bytes)).toBe(first.body.data.exportProposal.sha256);
    }
  });

  it('the same proposal exported at two times gives byte-identical documents dated by its state; the history has each export time', async () => {
    const later = '2026-03-02T17:45:12.345Z';
    for (const format of ['PDF', 'CSV', 'JSON'] as const) {
      clock = new Date(MADE_AT);
      const first = (await exportAs(broker, format)).body.data.exportProposal;
      clock = new Date(later);
      const second = (await exportAs(broker, format)).body.data.exportProposal;
      clock = new Date(MADE_AT);
      expect([format, second.sha256]).toEqual([format, first.sha256]);
      const bytes = (await content(second.document.id)).bytes;
      expect(sha256(bytes)).toBe(first.sha256);
      expect(bytes.includes(MADE_AT) || bytes.includes(later)).toBe(false);
      const history = (await graphql(gateway, broker, HISTORY, { id: tender.id })).body.data.tender.history;
      const atOf = (documentId: string) =>
        history.find((entry: { adviceExport: { documentId: string } | null }) => entry.adviceExport?.documentId === documentId).at;
      expect([atOf(first.document.id), atOf(second.document.id)]).toEqual([MADE_AT, later]);
    }
  });

  it("the PDF's creation and modification dates are the proposal's state, not the export's time", async () => {
    clock = new Date('2026-03-05T10:00:00.000Z');
    const { body } = await exportAs(broker, 'PDF');
    clock = new Date(MADE_AT);
    const { bytes } = await content(body.data.exportProposal.document.id);
    const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
    const pdf = await pdfjs.getDocument({ data: new Uint8Array(bytes), useSystemFonts: false }).promise;
    const info = (await pdf.getMetadata()).info as Record<string, string>;
    await pdf.destroy();
    expect([info.CreationDate, info.ModDate]).toEqual(['D:20260301080000Z', 'D:20260301080000Z']);
    expect(await firstPageText(bytes)).toContain(`As of: ${STATE_AT}`);
  });

  it('a change of the proposal changes the SHA-256 and the time it states, and so does a validity that ends', async () => {
    const before = (await exportAs(broker, 'JSON')).body.data.exportProposal.sha256;
    const alpha = await gateway.em().findOneOrFail(QuoteRequest, { tender: tender.id, insurer: world.insurers[0].id });
    const changedAt = '2026-03-01T09:00:00.000Z';
    await gateway.em().nativeUpdate(QuoteRequest, { id: alpha.id }, { updatedAt: new Date(changedAt) });
    const changed = (await exportAs(broker, 'JSON')).body.data.exportProposal;
    await gateway.em().nativeUpdate(QuoteRequest, { id: alpha.id }, { updatedAt: new Date('2026-02-28T12:00:00.000Z') });
    expect(changed.sha256).not.toBe(before);
    expect(JSON.parse((await content(changed.document.id)).bytes.toString('utf8')).asOf).toBe(changedAt);
    expect((await exportAs(broker, 'JSON')).body.data.exportProposal.sha256).toBe(before);

    // Müller's quote is valid until 2026-04-30T22:00Z: exported after that, it shows EXPIRED, as of when it ended.
    clock = new Date('2026-05-02T00:00:00.000Z');
    const expired = (await exportAs(broker, 'JSON')).body.data.exportProposal;
    clock = new Date('2026-06-01T00:00:00.000Z');
    const expiredLater = (await exportAs(broker, 'JSON')).body.data.exportProposal;
    clock = new Date(MADE_AT);
    expect(expired.sha256).not.toBe(before);
    expect(expiredLater.sha256).toBe(expired.sha256);
    const advice = JSON.parse((await content(expired.document.id)).bytes.toString('utf8'));
    expect(advice.asOf).toBe('2026-04-30T22:00:00.000Z');
    expect(advice.cheapest.map((best: { insurer: string }) => best.insurer)).toEqual(['Alpha Insurance']);
  });

  it('the PDF names every insurer with its outcome and the premiums as it shows them, umlauts included', async () => {
    const { body } = await exportAs(broker, 'PDF');
    expect(body.data.exportProposal.document).toMatchObject({ kind: 'ADVICE', contentType: 'application/pdf', addedByRole: 'broker' });
    const { status, type, bytes } = await content(body.data.exportProposal.document.id);
    expect([status, type]).toEqual([200, 'application/pdf']);
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await firstPageText(bytes);
    expect(text).toContain('Müller Versicherung');
    expect(text).toContain('Alpha Insurance');
    expect(text).toMatch(/Beta Insurance Outcome: declined; reason: Outside our appetite/);
    expect(text).toMatch(/Gamma Insurance Outcome: failed; reason: TIMEOUT/);
    // 987.65 plus 19 % tax; 1,234.50 plus 19 %: amounts as the PDF prints them, grouped.
    expect(text).toContain('premium 987.65 EUR');
    expect(text).toContain('premium with tax 1,175.30 EUR (cheapest)');
    expect(text).toContain('premium 1,234.50 EUR');
    expect(text).toContain('premium with tax 1,469.06 EUR');
    expect(text).toContain('Sprinkleranlage geprüft');
    expect(text).toContain(`As of: ${STATE_AT}`);
  });

  it('the PDF embeds its fonts: no standard font a reader would have to substitute', async () => {
    const { body } = await exportAs(broker, 'PDF');
    const { bytes } = await content(body.data.exportProposal.document.id);
    expect(bytes.includes('/FontFile2')).toBe(true);
    expect(bytes.includes('+DejaVuSans')).toBe(true);
    expect(bytes.includes('/Helvetica')).toBe(false);
  });

  it('the CSV parses (RFC 4180) with one row per option and one per insurer without options', async () => {
    const { body } = await exportAs(broker, 'CSV');
    const { type, bytes } = await content(body.data.exportProposal.document.id);
    expect(type).toMatch(/^text\/csv/);
    const rows: Record<string, string>[] = parse(bytes, { columns: true, strict: true } as never);
    expect(rows.map((row) => [row.insurer, row.outcome, row.premium, row.tax, row.premium_with_tax, row.currency, row.cheapest])).toEqual([
      ['Alpha Insurance', 'QUOTED', '1234.50', '234.56', '1469.06', 'EUR', 'no'],
      ['Beta Insurance', 'DECLINED', '', '', '', '', ''],
      ['Gamma Insurance', 'FAILED', '', '', '', '', ''],
      ['Müller Versicherung', 'QUOTED', '987.65', '187.65', '1175.30', 'EUR', 'yes'],
    ]);
    expect(rows[1].reason).toBe('Outside our appetite');
    expect(rows[3].subjectivities).toBe('PRE_BIND: Sprinkleranlage geprüft');
    expect(rows[3].valid_until).toBe('2026-04-30T22:00:00.000Z');
    expect(rows.every((row) => row.as_of === STATE_AT)).toBe(true);
  });

  it('a CSV field a spreadsheet would run as a formula is written as text', async () => {
    const beta = await gateway.em().findOneOrFail(QuoteRequest, { tender: tender.id, status: QuoteRequestStatus.DECLINED });
    await gateway.em().nativeUpdate(QuoteRequest, { id: beta.id }, { underwriterReason: '=HYPERLINK("http://x.example", "see")' });
    const { body } = await exportAs(broker, 'CSV');
    await gateway.em().nativeUpdate(QuoteRequest, { id: beta.id }, { underwriterReason: 'Outside our appetite' });
    const rows: Record<string, string>[] = parse((await content(body.data.exportProposal.document.id)).bytes, { columns: true } as never);
    expect(rows[1].reason).toBe(`'=HYPERLINK("http://x.example", "see")`);
  });

  it('the JSON has the documented shape', async () => {
    const { body } = await exportAs(internal, 'JSON');
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    const { type, bytes } = await content(body.data.exportProposal.document.id);
    expect(type).toMatch(/^application\/json/);
    const advice = JSON.parse(bytes.toString('utf8'));
    expect(advice).toMatchObject({ schema: 'tender-exchange/advice/v2', tenderId: tender.id, asOf: STATE_AT, taxRate: 0.19 });
    expect(advice).not.toHaveProperty('madeAt');
    expect(advice.insurers.map((entry: { name: string; outcome: string }) => [entry.name, entry.outcome])).toEqual([
      ['Alpha Insurance', 'QUOTED'],
      ['Beta Insurance', 'DECLINED'],
      ['Gamma Insurance', 'FAILED'],
      ['Müller Versicherung', 'QUOTED'],
    ]);
    expect(advice.insurers[3]).toMatchObject({
      reason: null,
      validUntil: '2026-04-30T22:00:00.000Z',
      currency: 'EUR',
      options: [
        {
          insuranceSum: 1_000_000,
          deductible: 0,
          premium: 987.65,
          tax: 187.65,
          premiumWithTax: 1175.3,
          currency: 'EUR',
          cheapest: true,
          subjectivities: [{ text: 'Sprinkleranlage geprüft', stage: 'PRE_BIND' }],
        },
      ],
    });
    expect(advice.cheapest).toEqual([
      { insuranceSum: 1_000_000, deductible: 0, currency: 'EUR', insurer: 'Müller Versicherung', premium: 987.65, premiumWithTax: 1175.3 },
    ]);
  });

  it("the tender's history holds each export's SHA-256, which matches the bytes the content route serves", async () => {
    const { body } = await exportAs(broker, 'PDF');
    const exported = body.data.exportProposal;
    const history = (await graphql(gateway, broker, HISTORY, { id: tender.id })).body.data.tender.history;
    const entry = history.find(
      (candidate: { adviceExport: { documentId: string } | null }) => candidate.adviceExport?.documentId === exported.document.id,
    );
    expect(entry).toMatchObject({
      at: MADE_AT,
      actorRole: 'BROKER',
      reason: 'advice exported (PDF)',
      adviceExport: { format: 'PDF', sha256: exported.sha256 },
    });
    expect(entry.actor).toEqual(expect.any(String));
    const { bytes } = await content(exported.document.id);
    expect(sha256(bytes)).toBe(entry.adviceExport.sha256);
    // The answer's download link serves the same bytes, without a bearer token.
    const linked = Buffer.from(await (await fetch(exported.document.downloadUrl)).arrayBuffer());
    expect(sha256(linked)).toBe(exported.sha256);
  });

  it('a changed quote changes the SHA-256', async () => {
    const before = (await exportAs(broker, 'PDF')).body.data.exportProposal.sha256;
    const option = await gateway.em().findOneOrFail(QuoteOption, { quoteRequest: { insurer: mueller.id } });
    await gateway.em().nativeUpdate(QuoteOption, { id: option.id }, { premium: 990 });
    const after = (await exportAs(broker, 'PDF')).body.data.exportProposal.sha256;
    await gateway.em().nativeUpdate(QuoteOption, { id: option.id }, { premium: 987.65 });
    expect(after).not.toBe(before);
    expect((await exportAs(broker, 'PDF')).body.data.exportProposal.sha256).toBe(before);
  });

  it('an insurer of the tender sees no ADVICE document (REST list, content) and no advice export in the history', async () => {
    const { body } = await exportAs(broker, 'PDF');
    const documentId = body.data.exportProposal.document.id;
    const list = await getJson(gateway, `/public/v1/tenders/${tender.id}/documents`, insurer);
    expect(list.status).toBe(200);
    expect(list.body.payload.map((document: { _id: string }) => document._id)).not.toContain(documentId);
    expect((await content(documentId, insurer, '/public/v1')).status).toBe(404);
    type Entry = { adviceExport: unknown };
    const brokers: Entry[] = (await graphql(gateway, broker, HISTORY, { id: tender.id })).body.data.tender.history;
    const insurers: Entry[] = (await graphql(gateway, insurer, HISTORY, { id: tender.id })).body.data.tender.history;
    expect(brokers.filter((entry) => entry.adviceExport !== null).length).toBeGreaterThan(0);
    expect(insurers).toHaveLength(brokers.filter((entry) => entry.adviceExport === null).length);
    expect(insurers.every((entry) => entry.adviceExport === null)).toBe(true);
  });

  it('GraphQL Tender.documents shows ADVICE documents to the broker and internal users, not to analysts', async () => {
    const { body } = await exportAs(broker, 'JSON');
    const documentId = body.data.exportProposal.document.id;
    const analyst = await tokenFor(gateway, Role.ANALYST);
    const idsFor = async (token: string): Promise<string[]> =>
      (
        await graphql(gateway, token, 'query ($id: ID!) { tender(id: $id) { documents { id kind } } }', { id: tender.id })
      ).body.data.tender.documents.map((document: { id: string }) => document.id);
    expect(await idsFor(broker)).toContain(documentId);
    expect(await idsFor(internal)).toContain(documentId);
    expect(await idsFor(analyst)).not.toContain(documentId);
    const history = (await graphql(gateway, analyst, HISTORY, { id: tender.id })).body.data.tender.history;
    expect(history.every((entry: { adviceExport: unknown }) => entry.adviceExport === null)).toBe(true);
  });

  it('the tender broker lists its ADVICE documents over REST', async () => {
    const { body } = await exportAs(broker, 'CSV');
    const list = await getJson(gateway, `/api/v1/tenders/${tender.id}/documents`, broker);
    expect(list.body.payload.find((document: { _id: string }) => document._id === body.data.exportProposal.document.id)).toMatchObject({
      kind: 'ADVICE',
      content_type: 'text/csv',
    });
  });

  it("another broker's export of the tender is NOT_FOUND; an insurer's is FORBIDDEN; nothing is stored", async () => {
    const countBefore = (await getJson(gateway, `/api/v1/tenders/${tender.id}/documents`, broker)).body.payload.length;
    expect((await exportAs(otherBroker, 'PDF')).body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await exportAs(insurer, 'PDF')).body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await exportAs(broker, 'PDF', 'no-such-tender')).body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await getJson(gateway, `/api/v1/tenders/${tender.id}/documents`, broker)).body.payload.length).toBe(countBefore);
  });

  it('nobody uploads an ADVICE document: the kind is made by the export only', async () => {
    const { body } = await graphql(
      gateway,
      internal,
      `mutation { createDocumentUpload(input: { tenderId: "${tender.id}", kind: ADVICE, filename: "a.pdf", contentType: "application/pdf", size: 10, sha256: "${'0'.repeat(64)}" }) { uploadUrl } }`,
    );
    expect(body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('exportProposal on the S3 store', () => {
  let s3: S3Server;
  let gateway: Gateway;

  beforeAll(async () => {
    s3 = await startS3Server();
    gateway = await startGateway({ dispatch: false, clock: () => new Date(MADE_AT), env: s3.env });
  });

  afterAll(async () => {
    await gateway?.close();
    await s3?.close();
  });

  it('stores the same bytes for the same proposal, and serves the bytes whose SHA-256 the history holds', async () => {
    const world = await createWorld(gateway.em());
    const tender = await createTender(gateway.em(), world, {});
    await receivedQuote(gateway.em(), tender, world.insurers[0], 1500);
    const broker = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
    const exports = [];
    for (let i = 0; i < 2; i++)
      exports.push((await graphql(gateway, broker, EXPORT, { tenderId: tender.id, format: 'PDF' })).body.data.exportProposal);
    expect(exports[1].sha256).toBe(exports[0].sha256);
    const response = await fetch(`${gateway.url}/api/v1/tenders/${tender.id}/documents/${exports[1].document.id}/content`, {
      headers: { authorization: `Bearer ${broker}` },
    });
    expect(sha256(Buffer.from(await response.arrayBuffer()))).toBe(exports[0].sha256);
    const history = (await graphql(gateway, broker, HISTORY, { id: tender.id })).body.data.tender.history;
    expect(history.map((entry: { adviceExport: { sha256: string } }) => entry.adviceExport.sha256)).toEqual([
      exports[0].sha256,
      exports[0].sha256,
    ]);
  });
});
