import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { Role } from '../src/access';
import { Insurer } from '../src/insurers';
import { QuoteOption, QuoteRequest, QuoteRequestStatus, SubjectivityStatus, TrackedSubjectivity } from '../src/quotes';
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
  mutation ($tenderId: ID!, $format: AdviceFormat!, $advice: AdviceInput, $language: AdviceLanguage) {
    exportProposal(tenderId: $tenderId, format: $format, advice: $advice, language: $language) {
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

/** Each page's text, as a reader extracts it (pdf.js, Mozilla's renderer). */
async function pageTexts(bytes: Buffer): Promise<string[]> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const pdf = await pdfjs.getDocument({ data: new Uint8Array(bytes), useSystemFonts: false }).promise;
  const pages: string[] = [];
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const content = await (await pdf.getPage(number)).getTextContent();
    pages.push(
      content.items
        .map((item) => ('str' in item ? item.str : ''))
        .join(' ')
        .replace(/\s+/g, ' '),
    );
  }
  await pdf.destroy();
  return pages;
}

/** The first page's text. */
const firstPageText = async (bytes: Buffer): Promise<string> => (await pageTexts(bytes))[0];

/** An advice as a broker records it (§ 61 VVG), line breaks included. */
const ADVICE = {
  wishesAndNeeds: 'Deckung für Cyber-Schäden bis 1 Mio. €.\nKein Selbstbehalt gewünscht.',
  recommendation: 'Müller Versicherung, Option 1.000.000 € / 0 €',
  reasons: 'Günstigste Prämie bei gleicher Deckung.\nDer Vorbehalt (Sprinkleranlage) ist erfüllt.',
};

describe('exportProposal', () => {
  let gateway: Gateway;
  let world: World;
  let tender: Tender;
  let broker: string;
  let internal: string;
  let otherBroker: string;
  let insurer: string;
  let mueller: Insurer;

  const exportAs = async (
    token: string,
    format: 'PDF' | 'CSV' | 'JSON',
    tenderId = tender.id,
    given: { advice?: Partial<typeof ADVICE>; language?: 'DE' | 'EN' } = {},
  ) => graphql(gateway, token, EXPORT, { tenderId, format, ...given });

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
    // The insurer has accepted the condition (issue 41): the export shows where it stands.
    const tracking = gateway.em();
    tracking.create(TrackedSubjectivity, {
      tender: tender.id,
      quoteRequest: muellerRequest,
      insurer: mueller.id,
      quoteOption: muellerOption.id,
      position: 0,
      stage: SubjectivityStage.PRE_BIND,
      text: 'Sprinkleranlage geprüft',
      status: SubjectivityStatus.ACCEPTED,
      dueAt: new Date('2026-04-15T10:00:00.000Z'),
    });
    await tracking.flush();
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
    expect(await firstPageText(bytes)).toContain('Stand: 01.03.2026');
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

  it('the PDF names the customer, the broker and every insurer, in German with German numbers and dates by default', async () => {
    const { body } = await exportAs(broker, 'PDF');
    expect(body.data.exportProposal.document).toMatchObject({ kind: 'ADVICE', contentType: 'application/pdf', addedByRole: 'broker' });
    const { status, type, bytes } = await content(body.data.exportProposal.document.id);
    expect([status, type]).toEqual([200, 'application/pdf']);
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await firstPageText(bytes);
    expect(text).toContain('Kunde: Acme GmbH');
    expect(text).toContain('Versicherungsmakler: First Brokers, Ansprechpartner: Erika Muster0');
    expect(text).toContain('Produkt: Cyber Protect (Sparte: Cyber)');
    // STATE_AT, 08:00 UTC, is 1 March in Berlin; Müller's validity, 22:00 UTC on 30 April, is 1 May there.
    expect(text).toContain('Stand: 01.03.2026');
    expect(text).toContain('Versicherungsteuer: 19 %');
    expect(text).toContain('Beta Insurance: abgelehnt; Grund: Outside our appetite');
    expect(text).toContain('Gamma Insurance: fehlgeschlagen; Grund: TIMEOUT');
    // One table for the one insurance sum and deductible: the quoting insurers as columns, each row across them.
    expect(text).toContain(
      'Versicherungssumme 1.000.000 €, Selbstbehalt 0 € Versicherer Alpha Insurance Müller Versicherung (günstigstes Angebot) ' +
        'Prämie 1.234,50 € 987,65 € Versicherungsteuer 234,56 € 187,65 € Prämie inkl. Steuer 1.469,06 € 1.175,30 € ' +
        'Gültig bis – 01.05.2026 Vorbehalte keine vor Deckung, akzeptiert: Sprinkleranlage geprüft',
    );
    expect(text).toContain('Diese Ausfertigung enthält den Angebotsvergleich ohne dokumentierte Beratung.');
    expect(text).toMatch(/Seite 1 von 1$/);
    expect(text).not.toContain(STATE_AT);
  });

  it('with language EN the PDF has English labels, numbers and dates', async () => {
    const { body } = await exportAs(broker, 'PDF', tender.id, { language: 'EN' });
    const text = await firstPageText((await content(body.data.exportProposal.document.id)).bytes);
    expect(text).toContain('Customer: Acme GmbH');
    expect(text).toContain('Insurance broker: First Brokers, person in charge: Erika Muster0');
    expect(text).toContain('As of: 1 March 2026');
    expect(text).toContain(
      'Insurance sum €1,000,000, deductible €0 Insurer Alpha Insurance Müller Versicherung (cheapest) ' +
        'Premium €1,234.50 €987.65 Tax €234.56 €187.65 Premium with tax €1,469.06 €1,175.30 ' +
        'Valid until – 1 May 2026 Subjectivities none before binding, accepted: Sprinkleranlage geprüft',
    );
    expect(text).toContain('Beta Insurance: declined; reason: Outside our appetite');
    expect(text).toMatch(/Page 1 of 1$/);
    expect(text).not.toMatch(/Seite|Kunde/);
  });

  it('the PDF shows one table per insurance sum and deductible, each with the insurers quoting it', async () => {
    const alpha = await gateway.em().findOneOrFail(QuoteRequest, { tender: tender.id, insurer: world.insurers[0].id });
    const em = gateway.em();
    const extra = em.create(QuoteOption, {
      quoteRequest: alpha.id,
      position: 1,
      insuranceSum: 2_000_000,
      deductible: 5_000,
      premium: 2100,
    });
    await em.flush();
    try {
      const { body } = await exportAs(broker, 'PDF');
      const text = await firstPageText((await content(body.data.exportProposal.document.id)).bytes);
      expect(text).toContain(
        'Versicherungssumme 1.000.000 €, Selbstbehalt 0 € Versicherer Alpha Insurance Müller Versicherung (günstigstes Angebot) Prämie',
      );
      expect(text).toContain(
        'Versicherungssumme 2.000.000 €, Selbstbehalt 5.000 € Versicherer Alpha Insurance (günstigstes Angebot) Prämie 2.100,00 € ',
      );
      expect(text.indexOf('Versicherungssumme 1.000.000 €')).toBeLessThan(text.indexOf('Versicherungssumme 2.000.000 €'));
    } finally {
      await gateway.em().nativeDelete(QuoteOption, { id: extra.id });
    }
  });

  it('the PDF records the advice: wishes and needs, the recommendation and its reasons, with page numbers on every page', async () => {
    const { body } = await exportAs(broker, 'PDF', tender.id, { advice: ADVICE });
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    const [text] = await pageTexts((await content(body.data.exportProposal.document.id)).bytes);
    expect(text).toContain(
      'Wünsche und Bedürfnisse des Kunden Deckung für Cyber-Schäden bis 1 Mio. €. Kein Selbstbehalt gewünscht. ' +
        'Unsere Empfehlung Müller Versicherung, Option 1.000.000 € / 0 € ' +
        'Begründung Günstigste Prämie bei gleicher Deckung. Der Vorbehalt (Sprinkleranlage) ist erfüllt.',
    );
    expect(text).not.toContain('ohne dokumentierte Beratung');

    // Reasons long enough for more pages: each page says which it is of how many.
    const long = { ...ADVICE, reasons: Array.from({ length: 60 }, (_, line) => `Grund ${line + 1}: die Deckung passt.`).join('\n') };
    const pages = await pageTexts(
      (await content((await exportAs(broker, 'PDF', tender.id, { advice: long })).body.data.exportProposal.document.id)).bytes,
    );
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.map((page) => /Seite (\d+) von (\d+)$/.exec(page)?.slice(1))).toEqual(
      pages.map((_, index) => [String(index + 1), String(pages.length)]),
    );
    expect(pages.join(' ')).toContain('Grund 60: die Deckung passt.');
  });

  it('the same advice exported twice gives the same bytes, in German and in English', async () => {
    for (const language of ['DE', 'EN'] as const) {
      const first = (await exportAs(broker, 'PDF', tender.id, { advice: ADVICE, language })).body.data.exportProposal;
      clock = new Date('2026-03-09T12:00:00.000Z');
      const second = (await exportAs(broker, 'PDF', tender.id, { advice: ADVICE, language })).body.data.exportProposal;
      clock = new Date(MADE_AT);
      expect(second.sha256).toBe(first.sha256);
      expect(sha256((await content(second.document.id)).bytes)).toBe(first.sha256);
    }
    const german = (await exportAs(broker, 'PDF', tender.id, { advice: ADVICE })).body.data.exportProposal.sha256;
    const english = (await exportAs(broker, 'PDF', tender.id, { advice: ADVICE, language: 'EN' })).body.data.exportProposal.sha256;
    const other = (await exportAs(broker, 'PDF', tender.id, { advice: { ...ADVICE, reasons: 'Andere Gründe.' } })).body.data.exportProposal
      .sha256;
    expect(new Set([german, english, other]).size).toBe(3);
  });

  it('an advice too long, blank, with a control or bidi character is refused naming its field, and nothing is stored', async () => {
    const countBefore = (await getJson(gateway, `/api/v1/tenders/${tender.id}/documents`, broker)).body.payload.length;
    const refused = async (advice: Partial<typeof ADVICE>) => {
      const { body } = await exportAs(broker, 'PDF', tender.id, { advice: { ...ADVICE, ...advice } });
      expect(body.errors?.[0]?.extensions.code, JSON.stringify(body)).toBe('BAD_USER_INPUT');
      return body.errors[0];
    };
    expect((await refused({ wishesAndNeeds: 'x'.repeat(5001) })).extensions.errors).toEqual([
      { parameter: 'advice.wishesAndNeeds', message: expect.stringContaining('5000') },
    ]);
    expect((await refused({ recommendation: 'x'.repeat(1001) })).extensions.errors).toEqual([
      { parameter: 'advice.recommendation', message: expect.stringContaining('1000') },
    ]);
    expect((await refused({ reasons: '   ' })).extensions.errors).toEqual([{ parameter: 'advice.reasons', message: expect.any(String) }]);
    expect((await refused({ recommendation: 'Müller \u202eVersicherung' })).extensions.errors).toEqual([
      { parameter: 'advice.recommendation', message: expect.stringContaining('U+202E') },
    ]);
    // A C1 control (CSI of an ANSI escape) by the text rule; a C0 control by the screen every GraphQL string passes.
    expect((await refused({ wishesAndNeeds: 'Bedarf\u009b31m' })).extensions.errors).toEqual([
      { parameter: 'advice.wishesAndNeeds', message: expect.stringContaining('U+009B') },
    ]);
    const bell = await refused({ reasons: 'Grund\u0007' });
    expect(bell.message).toContain('U+0007');
    expect(JSON.stringify(bell)).toContain('advice.reasons');
    // Exactly at the limits, with line breaks and tabs, the advice is taken.
    const atLimits = { wishesAndNeeds: `${'x'.repeat(4998)}\r\n`, recommendation: 'y'.repeat(1000), reasons: 'a\tb\nc' };
    expect((await exportAs(broker, 'JSON', tender.id, { advice: atLimits })).body.errors).toBeUndefined();
    expect((await getJson(gateway, `/api/v1/tenders/${tender.id}/documents`, broker)).body.payload.length).toBe(countBefore + 1);
  });

  it('the JSON and the CSV carry the language, the parties and the advice', async () => {
    const json = (await exportAs(broker, 'JSON', tender.id, { advice: ADVICE, language: 'EN' })).body.data.exportProposal;
    expect(JSON.parse((await content(json.document.id)).bytes.toString('utf8'))).toMatchObject({
      language: 'EN',
      lineOfBusiness: 'Cyber',
      customer: { name: 'Acme GmbH' },
      brokerCompany: { name: 'First Brokers' },
      personInCharge: { name: 'Erika Muster0' },
      advice: ADVICE,
    });
    const csv = (await exportAs(broker, 'CSV', tender.id, { advice: ADVICE })).body.data.exportProposal;
    const rows: Record<string, string>[] = parse((await content(csv.document.id)).bytes, { columns: true, strict: true } as never);
    expect(rows).toHaveLength(4);
    for (const row of rows) {
      expect(row).toMatchObject({
        language: 'DE',
        customer: 'Acme GmbH',
        broker_company: 'First Brokers',
        person_in_charge: 'Erika Muster0',
        wishes_and_needs: ADVICE.wishesAndNeeds,
        recommendation: ADVICE.recommendation,
        reasons: ADVICE.reasons,
      });
    }
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
    expect(rows[3].subjectivities).toBe('PRE_BIND ACCEPTED: Sprinkleranlage geprüft');
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
    expect(advice).toMatchObject({
      schema: 'tender-exchange/advice/v4',
      tenderId: tender.id,
      asOf: STATE_AT,
      taxRate: 0.19,
      language: 'DE',
      advice: null,
    });
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
          subjectivities: [{ text: 'Sprinkleranlage geprüft', stage: 'PRE_BIND', status: 'ACCEPTED', dueAt: '2026-04-15T10:00:00.000Z' }],
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
