import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { Address, Customer } from '../src/parties';
import { QuoteRequest } from '../src/quotes';
import { Tender, TenderStatus } from '../src/tenders';
import { Document } from '../src/documents';
import { createTender } from './helpers/fixtures';
import { graphql, tokenFor } from './helpers/gateway';
import { withGateway } from './helpers/scene';
import { PDF, addDocument, createUpload } from './helpers/documents';

/**
 * Issue 37, point 5: one text rule for every free-text field, by Unicode general category (src/platform/validation/
 * rules.ts), on GraphQL (BAD_USER_INPUT naming the field and the code point) and REST (problem+json naming the JSON
 * pointer and the code point); file names refuse CR and LF; Content-Disposition's `filename*` is RFC 8187.
 * On SQLite and PostgreSQL (DATABASE_URL).
 */
let internal: string;
let broker: string;

const scene = withGateway({ per: 'file', tender: { status: TenderStatus.QUOTES_AVAILABLE } });

beforeAll(async () => {
  internal = await scene.token(Role.INTERNAL);
  broker = await scene.token(Role.BROKER);
});

/** Characters the rule refuses in every field: [what, the character, its code point as messages name it]. */
const REFUSED_EVERYWHERE: [string, string, string][] = [
  ['Cc: DEL', '\u007f', 'U+007F'],
  ['Cc: a C1 control (NEL)', '\u0085', 'U+0085'],
  ['Cc: a C1 control (CSI)', '\u009b', 'U+009B'],
  ['Cf: a zero-width space', '\u200b', 'U+200B'],
  ['Cf: the Arabic letter mark', '\u061c', 'U+061C'],
  ['Cf: a left-to-right mark', '\u200e', 'U+200E'],
  ['Cf: a right-to-left override', '\u202e', 'U+202E'],
  ['Cf: a first-strong isolate', '\u2068', 'U+2068'],
  ['Cf: a word joiner', '\u2060', 'U+2060'],
  ['Cf: the byte order mark', '\ufeff', 'U+FEFF'],
  ['Cf: a soft hyphen', '\u00ad', 'U+00AD'],
  ['Cf: a zero-width joiner between Latin letters', 'a\u200db', 'U+200D'],
  ['Cf: a tag character', '\u{e0041}', 'U+E0041'],
  ['Zl: the line separator', '\u2028', 'U+2028'],
  ['Zp: the paragraph separator', '\u2029', 'U+2029'],
  ['Co: a private-use character', '\ue000', 'U+E000'],
  ['Co: a supplementary private-use character', '\u{f0000}', 'U+F0000'],
  ['Cn: an unassigned code point', '\u0378', 'U+0378'],
  ['Cn: a noncharacter', '\uffff', 'U+FFFF'],
  ['Cs: a lone surrogate', '\ud800', 'U+D800'],
];
/** Characters a one-line field refuses and a field that may span lines keeps. */
const LINE_BREAKS: [string, string, string][] = [
  ['a line feed', '\n', 'U+000A'],
  ['a carriage return', '\r', 'U+000D'],
  ['a tab', '\t', 'U+0009'],
];
/** Text every field keeps. */
const KEPT = [
  'Müller & Söhne',
  'e\u0301cole',
  'שלום בע״מ',
  'می\u200cخواهم',
  'क्\u200dष',
  '👩\u200d💻 Zoë 🛡️',
  '🏳️\u200d🌈',
  '🧑🏽\u200d💻',
  '株式会社テスト',
];

const CREATE_TENDER = 'mutation($input: CreateTenderInput!) { createTender(input: $input) { id } }';
const tenderInput = (product: string) => ({
  input: {
    product,
    lineOfBusinessId: scene.world.lines.cyber.id,
    brokerCompanyId: scene.world.brokers[0].id,
    customer: { companyId: 'C-1', name: 'Acme' },
    submitter: { accountId: 'u1', email: 'u1@broker.example', firstName: 'Ute', lastName: 'Ulm' },
    taxRate: 0.19,
  },
});

interface Field {
  name: string;
  lines: boolean;
  /** The GraphQL or REST request carrying `value` in the field. */
  send: (value: string) => Promise<{ status: number; body: any }>;
  /** What names the field in the answer: a GraphQL parameter or a REST JSON pointer. */
  named: { parameter: string } | { pointer: string };
  stored: () => Promise<number>;
}

async function rest(path: string, token: string, body: unknown) {
  const response = await fetch(`${scene.gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status === 400) expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const FIELDS: Field[] = [
  {
    name: 'GraphQL createTender product (one line)',
    lines: false,
    send: (value) => graphql(scene.gateway, internal, CREATE_TENDER, tenderInput(`Cyber ${value} Protect`)),
    named: { parameter: 'product' },
    stored: () => scene.gateway.em().fork().count(Tender),
  },
  {
    name: 'GraphQL createDocumentUpload filename (one line)',
    lines: false,
    send: (value) =>
      createUpload(scene.gateway, broker, { tenderId: scene.tender.id, kind: 'RISK', filename: `risk${value}report.pdf` }, PDF),
    named: { parameter: 'filename' },
    stored: () => scene.gateway.em().fork().count(Document),
  },
  {
    name: 'GraphQL closeTender reason (lines)',
    lines: true,
    send: async (value) =>
      graphql(scene.gateway, broker, 'mutation($id: ID!, $reason: String!) { closeTender(tenderId: $id, reason: $reason) { status } }', {
        id: (await createTender(scene.gateway.em().fork(), scene.world, { status: TenderStatus.QUOTES_AVAILABLE })).id,
        reason: `Customer ${value} withdrew`,
      }),
    named: { parameter: 'reason' },
    stored: () => scene.gateway.em().fork().count(Tender, { status: TenderStatus.CLOSED }),
  },
  {
    name: 'GraphQL eraseCustomer reason (lines)',
    lines: true,
    send: async (value) => {
      // A customer of its own each time: an erasure that goes through leaves the others' tenders alone.
      const em = scene.gateway.em().fork();
      const customer = em.create(Customer, { name: 'Erasable AG', companyId: 'E-1', address: new Address() });
      await em.flush();
      return graphql(
        scene.gateway,
        internal,
        'mutation($id: ID!, $reason: String!) { eraseCustomer(customerId: $id, reason: $reason) { tenders } }',
        {
          id: customer.id,
          reason: `Ticket ${value} PRIV-7`,
        },
      );
    },
    named: { parameter: 'reason' },
    stored: () =>
      scene.gateway
        .em()
        .fork()
        .count(Customer, { erasedAt: { $ne: null } }),
  },
  {
    name: 'GraphQL requestQuotes riskInformation.additional (free text in JSON)',
    lines: true,
    send: async (value) =>
      graphql(scene.gateway, broker, 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }', {
        input: {
          tenderId: (await createTender(scene.gateway.em().fork(), scene.world, { status: TenderStatus.QUOTES_AVAILABLE })).id,
          insurerIds: [scene.world.insurers[0].id],
          limits: [{ insuranceSum: 1_000_000, deductible: 1000 }],
          riskInformation: { additional: { notes: ['fine', `Soft${value}ware`] } },
        },
      }),
    named: { parameter: 'riskInformation.additional.notes[1]' },
    stored: () => scene.gateway.em().fork().count(QuoteRequest),
  },
  {
    name: 'REST POST /integration/v1/webhook-endpoints description (one line)',
    lines: false,
    send: async (value) => {
      const token = await tokenFor(scene.gateway, Role.BROKER, { brokerCompanyId: scene.world.brokers[1].id });
      return rest('/integration/v1/webhook-endpoints', token, {
        url: 'https://hooks.partner.example/in',
        event_types: ['tender.status_changed'],
        description: `hook ${value} here`,
      });
    },
    named: { pointer: '/description' },
    stored: async () =>
      Number(((await scene.gateway.em().getConnection().execute('select count(*) as n from webhook_endpoint')) as { n: unknown }[])[0].n),
  },
];

const REFUSALS = FIELDS.flatMap((field) =>
  [...REFUSED_EVERYWHERE, ...(field.lines ? [] : LINE_BREAKS)].map(
    ([what, character, codePoint]) => [field.name, what, codePoint, character, field] as const,
  ),
);

describe('one text rule for every free-text field, by Unicode general category', () => {
  it.each(REFUSALS)(
    '%s refuses %s (%s), naming the field and the code point; nothing is stored',
    async (_, __, codePoint, character, field) => {
      const before = await field.stored();
      const { status, body } = await field.send(character);
      expect(status, JSON.stringify(body)).toBe(400);
      const problems = 'parameter' in field.named ? body.errors[0].extensions.errors : body.errors;
      if ('parameter' in field.named) expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      else expect((body as { status: number }).status, 'a problem+json body').toBe(400);
      expect(problems).toEqual([expect.objectContaining({ ...field.named, message: expect.stringContaining(codePoint) })]);
      expect(await field.stored()).toBe(before);
    },
  );

  it.each(FIELDS.filter((field) => field.lines).map((field) => [field.name, field] as const))(
    '%s keeps tab, line feed and CRLF',
    async (_, field) => {
      const { body } = await field.send('\tline one\r\nline two\n');
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    },
  );

  it.each(KEPT)('keeps "%s" (letters, marks, emoji sequences, the joiners of Persian and Devanagari) in every field', async (text) => {
    for (const field of FIELDS) {
      const { body } = await field.send(text);
      expect(body?.errors?.[0]?.extensions ?? undefined, `${field.name}: ${JSON.stringify(body)}`).toBeUndefined();
    }
  });
});

/** RFC 6266 with RFC 8187, read back strictly: the ASCII `filename` and the ext-value of `filename*`, decoded. */
function parseContentDisposition(header: string): { fallback: string; filename: string } {
  // attr-char = ALPHA / DIGIT / "!" / "#" / "$" / "&" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~"
  const match =
    /^attachment; filename="([\x20\x21\x23-\x5b\x5d-\x7e]*)"; filename\*=UTF-8''((?:%[0-9A-F]{2}|[A-Za-z0-9!#$&+\-.^_`|~])+)$/.exec(header);
  if (!match) throw new Error(`not RFC 6266 / RFC 8187: ${header}`);
  const bytes: number[] = [];
  for (let i = 0; i < match[2].length; i++) {
    if (match[2][i] === '%') {
      bytes.push(parseInt(match[2].slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(match[2].charCodeAt(i));
  }
  return { fallback: match[1], filename: new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes)) };
}

describe('file names', () => {
  it('CR, LF and tab in a file name are refused naming the code point, not replaced', async () => {
    for (const [character, codePoint] of [
      ['\r', 'U+000D'],
      ['\n', 'U+000A'],
      ['\t', 'U+0009'],
    ]) {
      const { status, body } = await createUpload(
        scene.gateway,
        broker,
        { tenderId: scene.tender.id, kind: 'RISK', filename: `a${character}b.pdf` },
        PDF,
      );
      expect(status).toBe(400);
      expect(body.errors[0].extensions.errors).toEqual([
        {
          parameter: 'filename',
          message: expect.stringMatching(new RegExp(`^must not contain ${codePoint.replace('+', '\\+')} \\(character 2\\)`)),
        },
      ]);
    }
  });

  it.each(["report (final) 'v2' *draft*.pdf", 'Müller 100% Angebot; Nr. 7.pdf', '見積書 2026 👩\u200d💻.pdf', 'a,b=c!#$&+^`|~.pdf'])(
    'Content-Disposition of "%s" is RFC 8187 and reads back as the stored name, with an ASCII fallback',
    async (name) => {
      const id = await addDocument(scene.gateway, broker, { tenderId: scene.tender.id, kind: 'OTHER', filename: name });
      const stored = (await scene.gateway.em().fork().findOneOrFail(Document, id)).filename;
      const content = await fetch(`${scene.gateway.url}/api/v1/tenders/${scene.tender.id}/documents/${id}/content`, {
        headers: { authorization: `Bearer ${broker}` },
      });
      expect(content.status).toBe(200);
      await content.arrayBuffer();
      const { fallback, filename } = parseContentDisposition(content.headers.get('content-disposition')!);
      expect(filename).toBe(stored);
      expect(fallback).toMatch(/^[\x20-\x7e]+$/);
      expect([...fallback].length).toBe([...stored].length);
    },
  );
});
