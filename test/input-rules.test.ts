import { describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { Tender, TenderStatus } from '../src/tenders';
import { createTender } from './helpers/fixtures';
import { createClient, getJson, graphql, requestToken, tokenFor } from './helpers/gateway';
import { withPagingWorld } from './helpers/paging-world';

/**
 * Forged cursors, timestamps outside the years 0001–9999, country codes and names: every one is the documented 400
 * naming the field, on REST and GraphQL, never a 500 (run on SQLite and on PostgreSQL with DATABASE_URL).
 */
const { scene, tokens } = withPagingWorld(5);

const decode = (cursor: string): unknown[] => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
const encode = (value: unknown[]): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const millisOf = (iso: string) => new Date(iso).getTime();

const GRAPHQL_PAGE = 'query($after: String, $sort: [TenderSort!]) { tenders(limit: 1, after: $after, sort: $sort) { next items { id } } }';

/** Each sort's real cursor of a first page, and what a forger can change in it: [sort, REST sort, index, forged value]. */
const FORGED: [string, { field: string; direction: string }[] | undefined, string, number, unknown][] = [
  ['a time beyond JavaScript dates', undefined, '', 2, 9_000_000_000_000_000],
  ['the largest safe integer as a time', undefined, '', 2, Number.MAX_SAFE_INTEGER],
  ['a time in year 0', undefined, '', 2, millisOf('0000-06-01T00:00:00.000Z')],
  ['a time in a negative year', undefined, '', 2, millisOf('-000100-01-01T00:00:00.000Z')],
  ['a time in year 10000', undefined, '', 2, millisOf('+010000-01-01T00:00:00.000Z')],
  ['a time with a fraction of a millisecond', undefined, '', 2, 1.5],
  ['a time written as text', undefined, '', 2, '2026-01-01T00:00:00Z'],
  ['a NUL in the id', undefined, '', 3, 'a\u0000b'],
  ['an id longer than ids are', undefined, '', 3, 'x'.repeat(37)],
  ['a NUL in the product', [{ field: 'PRODUCT', direction: 'ASC' }], 'product', 2, 'Product\u0000A'],
  ['a product longer than products are', [{ field: 'PRODUCT', direction: 'ASC' }], 'product', 2, 'P'.repeat(201)],
  ['a status that does not exist', [{ field: 'STATUS', direction: 'DESC' }], '-status', 2, 'NOT_A_STATUS'],
  ['a NUL in the status', [{ field: 'STATUS', direction: 'DESC' }], '-status', 2, 'CLOSED\u0000'],
  ['a time of updatedAt in year 0', [{ field: 'UPDATED_AT', direction: 'ASC' }], 'updated_at', 2, millisOf('0000-01-01T00:00:00.000Z')],
];

describe('forged after cursors', () => {
  it.each(FORGED)('a cursor with %s is refused with 400 naming after, on REST and GraphQL', async (_, sort, restSort, index, value) => {
    const first = await getJson(scene.gateway, `/api/v1/tenders?limit=1${restSort ? `&sort=${restSort}` : ''}`, tokens.broker);
    expect(first.status).toBe(200);
    const real = decode(first.body.metadata.next);
    expect(real.length).toBeGreaterThan(index);
    const forged = encode(real.map((part, i) => (i === index ? value : part)));

    const rest = await getJson(
      scene.gateway,
      `/api/v1/tenders?limit=1&after=${forged}${restSort ? `&sort=${restSort}` : ''}`,
      tokens.broker,
    );
    expect(rest.status, JSON.stringify(rest.body)).toBe(400);
    expect(rest.body.code).toBe('BAD_USER_INPUT');
    expect(rest.body.errors.map((error: { parameter: string }) => error.parameter)).toEqual(['after']);

    const viaGraphql = await graphql(scene.gateway, tokens.broker, GRAPHQL_PAGE, { after: forged, sort });
    expect(viaGraphql.body.errors?.[0]?.extensions?.code, JSON.stringify(viaGraphql.body)).toBe('BAD_USER_INPUT');
    expect(viaGraphql.body.errors[0].extensions.errors).toEqual([expect.objectContaining({ parameter: 'after' })]);

    // The real cursor still pages.
    const next = await getJson(
      scene.gateway,
      `/api/v1/tenders?limit=1&after=${first.body.metadata.next}${restSort ? `&sort=${restSort}` : ''}`,
      tokens.broker,
    );
    expect(next.status).toBe(200);
  });

  it('a cursor at the edges of the years 0001 and 9999 is accepted and pages to where it points', async () => {
    const first = await getJson(scene.gateway, '/api/v1/tenders?limit=1', tokens.broker);
    const real = decode(first.body.metadata.next);
    const latest = encode([real[0], real[1], millisOf('9999-12-31T23:59:59.999Z'), real[3]]);
    const earliest = encode([real[0], real[1], millisOf('0001-01-01T00:00:00.000Z'), real[3]]);
    const fromLatest = await getJson(scene.gateway, `/api/v1/tenders?limit=200&after=${latest}`, tokens.broker);
    expect(fromLatest.status).toBe(200);
    expect(fromLatest.body.payload).toHaveLength(5);
    const fromEarliest = await getJson(scene.gateway, `/api/v1/tenders?limit=200&after=${earliest}`, tokens.broker);
    expect(fromEarliest.status).toBe(200);
    expect(fromEarliest.body.payload).toHaveLength(0);
  });
});

describe('one timestamp rule: years 0001–9999 UTC', () => {
  const OUTSIDE = [
    '0000-01-01T00:00:00Z',
    '0001-01-01T00:00:00+01:00',
    '9999-12-31T23:59:59-01:00',
    '2026-02-30T00:00:00Z',
    '2026-01-01T00:00:00',
  ];

  it.each(OUTSIDE)(
    'tenders(updatedSince: "%s") is BAD_USER_INPUT as a literal and as a variable, as updated_since is on REST',
    async (value) => {
      const literal = await graphql(scene.gateway, tokens.broker, `{ tenders(updatedSince: "${value}") { count } }`);
      expect(literal.status, JSON.stringify(literal.body)).toBe(400);
      expect(literal.body.errors[0].message).toContain('years 0001–9999');
      const variable = await graphql(
        scene.gateway,
        tokens.broker,
        'query($since: DateTimeISO) { tenders(updatedSince: $since) { count } }',
        {
          since: value,
        },
      );
      expect(variable.status, JSON.stringify(variable.body)).toBe(400);
      expect(variable.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(variable.body.errors[0].message).toContain('years 0001–9999');
      const rest = await getJson(scene.gateway, `/api/v1/tenders?updated_since=${encodeURIComponent(value)}`, tokens.broker);
      expect(rest.status).toBe(400);
      expect(rest.body.errors.map((error: { parameter: string }) => error.parameter)).toEqual(['updated_since']);
    },
  );

  it('the first and the last instant of the rule are accepted by GraphQL and REST', async () => {
    for (const value of ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '0004-02-29T12:00:00+02:00']) {
      const viaGraphql = await graphql(
        scene.gateway,
        tokens.broker,
        'query($since: DateTimeISO) { tenders(updatedSince: $since) { count } }',
        {
          since: value,
        },
      );
      expect(viaGraphql.body.errors, value).toBeUndefined();
      const rest = await getJson(scene.gateway, `/api/v1/tenders?updated_since=${encodeURIComponent(value)}`, tokens.broker);
      expect(rest.status, value).toBe(200);
    }
  });

  it('confirmedAt, a replay since and a token expiry in year 0 are refused with 400 naming the field', async () => {
    const tender = await createTender(scene.gateway.em(), scene.world, {
      status: TenderStatus.IN_COVERNOTE,
      awardedInsurer: scene.world.insurers[0],
      invited: [scene.world.insurers[0]],
    });
    const confirm = await graphql(
      scene.gateway,
      tokens.insurer,
      `mutation { confirmPolicyDocumentation(tenderId: "${tender.id}", policyNumber: "P-1", confirmedAt: "0000-01-01T00:00:00Z") { id } }`,
    );
    expect(confirm.status).toBe(400);
    expect(confirm.body.errors[0].message).toContain('years 0001–9999');
    const restConfirm = await fetch(`${scene.gateway.url}/integration/v1/tenders/${tender.id}/policy-documentation`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.insurer}` },
      body: JSON.stringify({ policy_number: 'P-1', confirmed_at: '0000-01-01T00:00:00Z' }),
    });
    expect(restConfirm.status).toBe(400);
    expect(((await restConfirm.json()) as any).errors.map((error: { pointer: string }) => error.pointer)).toEqual(['/confirmed_at']);

    const replay = await graphql(
      scene.gateway,
      tokens.broker,
      'mutation($since: DateTimeISO!) { replayWebhookDeliveries(endpointId: "x", since: $since) }',
      { since: '0000-12-31T23:59:59Z' },
    );
    expect(replay.status).toBe(400);
    expect(replay.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');

    const credentials = await createClient(scene.gateway, Role.BROKER, { brokerCompanyId: scene.world.brokers[0].id });
    await expect(requestToken(scene.gateway, credentials, '0000-01-01T00:00:00Z')).rejects.toThrow(/400.*years 0001–9999/);
  });
});

const CREATE_TENDER = 'mutation($input: CreateTenderInput!) { createTender(input: $input) { id } }';
const tenderInput = (change: (input: any) => void) => {
  const input = {
    product: 'Cyber Protect',
    lineOfBusinessId: scene.world.lines.cyber.id,
    brokerCompanyId: scene.world.brokers[0].id,
    customer: { companyId: 'C-1', name: 'Acme', address: { country: 'DE' } },
    submitter: { accountId: 'u1', email: 'u1@broker.example', firstName: 'Ute', lastName: 'Ulm' },
    taxRate: 0.19,
  };
  change(input);
  return { input };
};

describe('country codes and names', () => {
  it.each(['EU', 'UN', 'QO', 'XK', 'ZZ', 'AA'])(
    'country "%s", not an officially assigned ISO 3166-1 code, is refused and nothing is kept',
    async (code) => {
      const before = await scene.gateway.em().count(Tender);
      const { status, body } = await graphql(
        scene.gateway,
        tokens.internal,
        CREATE_TENDER,
        tenderInput((input) => (input.customer.address.country = code)),
      );
      expect(status, JSON.stringify(body)).toBe(400);
      expect(body.errors[0].extensions.errors).toEqual([expect.objectContaining({ parameter: 'customer.address.country' })]);
      expect(await scene.gateway.em().count(Tender)).toBe(before);
    },
  );

  it('assigned codes, including territories such as AQ and GG, are accepted', async () => {
    for (const code of ['DE', 'AQ', 'GG', 'SS', 'CW']) {
      const { body } = await graphql(
        scene.gateway,
        tokens.internal,
        CREATE_TENDER,
        tenderInput((input) => (input.customer.address.country = code)),
      );
      expect(body.errors, code).toBeUndefined();
    }
  });

  // Blank: only whitespace and invisible format characters; bidi controls reorder what a reader sees.
  const INVISIBLE_OR_BIDI: [string, string, (input: any, value: string) => void, string][] = [
    ['a product of only a zero-width space', '\u200b', (input, value) => (input.product = value), 'product'],
    ['a product of zero-width and no-break spaces', '\u200b\u00a0\u2060\ufeff', (input, value) => (input.product = value), 'product'],
    [
      'a customer name with a right-to-left override',
      'Acme \u202egnp.exe',
      (input, value) => (input.customer.name = value),
      'customer.name',
    ],
    [
      'a first name with a left-to-right isolate',
      '\u2066Ute',
      (input, value) => (input.submitter.firstName = value),
      'submitter.firstName',
    ],
    ['a last name with a pop directional isolate', 'Ulm\u2069', (input, value) => (input.submitter.lastName = value), 'submitter.lastName'],
    [
      'a city with a left-to-right embedding',
      '\u202aBerlin',
      (input, value) => (input.customer.address = { city: value }),
      'customer.address.city',
    ],
    ['a product with a C1 control (CSI)', 'Cyber \u009b31m', (input, value) => (input.product = value), 'product'],
  ];

  it.each(INVISIBLE_OR_BIDI)('%s is refused naming the field, and nothing is kept', async (_, value, set, field) => {
    const before = await scene.gateway.em().count(Tender);
    const { status, body } = await graphql(
      scene.gateway,
      tokens.internal,
      CREATE_TENDER,
      tenderInput((input) => set(input, value)),
    );
    expect(status, JSON.stringify(body)).toBe(400);
    expect(body.errors[0].extensions.errors).toEqual([expect.objectContaining({ parameter: field })]);
    expect(await scene.gateway.em().count(Tender)).toBe(before);
  });

  it('a name holding an ANSI escape (ESC) is refused with 400 and nothing is kept', async () => {
    const before = await scene.gateway.em().count(Tender);
    const { status, body } = await graphql(
      scene.gateway,
      tokens.internal,
      CREATE_TENDER,
      tenderInput((input) => (input.customer.name = '\u001b[31mAcme\u001b[0m')),
    );
    expect(status, JSON.stringify(body)).toBe(400);
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(await scene.gateway.em().count(Tender)).toBe(before);
  });

  it('names in other scripts, with combining marks and emoji, are accepted', async () => {
    for (const name of ['Müller & Söhne', 'שלום בע״מ', 'شركة التأمين', '株式会社テスト', 'Zoë 🛡️', 'e\u0301cole']) {
      const { body } = await graphql(
        scene.gateway,
        tokens.internal,
        CREATE_TENDER,
        tenderInput((input) => (input.customer.name = name)),
      );
      expect(body.errors, name).toBeUndefined();
    }
  });

  it('the REST webhook body and GraphQL refuse a description with a bidi override or an escape, and an insurer name of only invisible characters', async () => {
    const token = await tokenFor(scene.gateway, Role.BROKER, { brokerCompanyId: scene.world.brokers[0].id });
    for (const description of ['hook \u202e', 'hook \u001b[2J', 'hook \u0085']) {
      const rest = await fetch(`${scene.gateway.url}/integration/v1/webhook-endpoints`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ url: 'https://hooks.partner.example/in', event_types: ['tender.status_changed'], description }),
      });
      expect(rest.status, JSON.stringify(description)).toBe(400);
      const viaGraphql = await graphql(
        scene.gateway,
        token,
        'mutation($description: String) { createWebhookEndpoint(input: { url: "https://hooks.partner.example/in", eventTypes: [TENDER_STATUS_CHANGED], description: $description }) { secret } }',
        { description },
      );
      expect(viaGraphql.status, JSON.stringify(viaGraphql.body)).toBe(400);
      expect(viaGraphql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    }
    const listed = await getJson(scene.gateway, '/integration/v1/webhook-endpoints', token);
    expect(listed.body.payload ?? listed.body).toHaveLength(0);

    const insurerName = await graphql(
      scene.gateway,
      tokens.internal,
      'mutation { createInsurer(input: { name: "\\u200b\\u200c", quoteApiUrl: "https://quotes.delta.example/api" }) { id } }',
    );
    expect(insurerName.status).toBe(400);
    expect(insurerName.body.errors[0].extensions.errors).toEqual([expect.objectContaining({ parameter: 'name' })]);
  });

  it('a close reason may span lines but holds no escape or bidi override', async () => {
    const reasons: [string, number][] = [
      ['Customer withdrew.\nSee the call notes.', 200],
      ['Customer withdrew \u202e', 400],
      ['\u200b', 400],
    ];
    for (const [reason, expected] of reasons) {
      const tender = await createTender(scene.gateway.em(), scene.world, { status: TenderStatus.QUOTES_AVAILABLE });
      const { status, body } = await graphql(
        scene.gateway,
        tokens.broker,
        'mutation($id: ID!, $reason: String!) { closeTender(tenderId: $id, reason: $reason) { status } }',
        { id: tender.id, reason },
      );
      expect(status, JSON.stringify(body)).toBe(expected);
      if (expected === 400) expect(body.errors[0].extensions.errors).toEqual([expect.objectContaining({ parameter: 'reason' })]);
    }
  });
});
