import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { MAX_NAME_LENGTH } from '../src/api/graphql/request-screening';
import { QuoteRequest } from '../src/quotes';
import { TenderHistoryEntry, TenderStatus, Tender } from '../src/tenders';
import { createTender } from './helpers/fixtures';
import { graphql } from './helpers/gateway';
import { withGateway } from './helpers/scene';

const tokens: Record<string, string> = {};
/** What the gateway logged, one parsed pino line each. */
const logged: { level: number; msg: string }[] = [];

const sink = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n').filter(Boolean)) logged.push(JSON.parse(line));
    done();
  },
});
const scene = withGateway({ per: 'file', dispatch: false, logger: pino({ level: 'debug' }, sink), world: true });

beforeAll(async () => {
  tokens.internal = await scene.token(Role.INTERNAL);
  tokens.broker = await scene.token(Role.BROKER);
  tokens.insurer = await scene.token(Role.INSURER);
});

const name = (length: number) => `N${'a'.repeat(length - 1)}`;

describe('names in GraphQL documents', () => {
  it(`an operation name over ${MAX_NAME_LENGTH} characters is refused with 400 GRAPHQL_VALIDATION_FAILED, every time, and the name is not repeated`, async () => {
    for (let run = 0; run < 3; run++) {
      const { status, body } = await graphql(scene.gateway, tokens.broker, `query ${name(240_000)} { __typename }`);
      expect(status).toBe(400);
      expect(body.errors).toHaveLength(1);
      expect(body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(body.errors[0].message).toBe(
        `A name in the document has 240000 characters; names (operations, fragments, aliases, variables) may have at most ${MAX_NAME_LENGTH}`,
      );
    }
    const longest = await graphql(scene.gateway, tokens.broker, `query ${name(MAX_NAME_LENGTH)} { __typename }`);
    expect([longest.status, longest.body.data]).toEqual([200, { __typename: 'Query' }]);
  });

  it(`an alias, a variable or a fragment name over ${MAX_NAME_LENGTH} characters is refused the same way`, async () => {
    const long = name(MAX_NAME_LENGTH + 1);
    for (const query of [
      `{ ${long}: __typename }`,
      `query($${long}: Int) { tenders(limit: $${long}) { limit } }`,
      `{ ...${long} } fragment ${long} on Query { __typename }`,
    ]) {
      const { status, body } = await graphql(scene.gateway, tokens.broker, query);
      expect(status, query.slice(0, 30)).toBe(400);
      expect(body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    }
  });
});

describe('control characters in GraphQL strings', () => {
  /** GraphQL's own escape for NUL inside the query text: the raw-body screen sees only a backslash and letters. */
  const NUL = '\\u{0}';

  const refused = (answer: { status: number; body: any }) => {
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(answer.body.errors[0].message).toMatch(
      /contains the control character U\+00[01][0-9A-F]; text may hold tab, line feed and carriage return/,
    );
    expect(answer.body.data).toBeUndefined();
  };

  it('tender(id: "a\\u{0}b") is refused with 400 BAD_USER_INPUT for every role, also quoteRequests and proposal', async () => {
    for (const role of ['internal', 'broker', 'insurer']) {
      refused(await graphql(scene.gateway, tokens[role], `{ tender(id: "a${NUL}b") { id } }`));
      refused(await graphql(scene.gateway, tokens[role], `{ quoteRequests(tenderId: "a${NUL}b") { id } }`));
      refused(await graphql(scene.gateway, tokens[role], `{ proposal(tenderId: "a${NUL}b") { taxRate } }`));
    }
  });

  it('a closeTender reason with \\u{0} in the literal is refused and the tender stays open with no history added', async () => {
    const tender = await createTender(scene.gateway.em(), scene.world, { status: TenderStatus.QUOTES_AVAILABLE });
    refused(
      await graphql(
        scene.gateway,
        tokens.broker,
        `mutation { closeTender(tenderId: "${tender.id}", reason: "no longer${NUL} needed") { status } }`,
      ),
    );
    // The same in a block string (a raw control character: block strings have no escapes) and in a variable.
    refused(
      await graphql(
        scene.gateway,
        tokens.broker,
        `mutation { closeTender(tenderId: "${tender.id}", reason: """no longer\u0001 needed""") { status } }`,
      ),
    );
    refused(
      await graphql(
        scene.gateway,
        tokens.broker,
        'mutation($reason: String!, $id: ID!) { closeTender(tenderId: $id, reason: $reason) { status } }',
        { id: tender.id, reason: 'no\u001b[31m' },
      ),
    );
    const em = scene.gateway.em();
    expect((await em.findOneOrFail(Tender, tender.id)).status).toBe(TenderStatus.QUOTES_AVAILABLE);
    expect(await em.count(TenderHistoryEntry, { tender: tender.id })).toBe(0);

    // Tab, line feed and carriage return are text.
    const closed = await graphql(
      scene.gateway,
      tokens.broker,
      `mutation { closeTender(tenderId: "${tender.id}", reason: "no longer\\tneeded\\r\\nby the customer") { status } }`,
    );
    expect([closed.status, closed.body.data]).toEqual([200, { closeTender: { status: 'CLOSED' } }]);
  });

  it('createTender with \\u{0} in a field or in its JSON risk information is refused and no tender is stored', async () => {
    const em = scene.gateway.em();
    const before = await em.count(Tender, {});
    const input = (product: string, riskInformation: string) =>
      `mutation { createTender(input: { product: "${product}", lineOfBusinessId: "${scene.world.lines.cyber.id}", brokerCompanyId: "${scene.world.brokers[0].id}",
        customer: { companyId: "C-1", name: "Acme" }, submitter: { accountId: "u1", email: "u1@broker.example", firstName: "Ute", lastName: "Ulm" },
        taxRate: 0.19, riskInformation: ${riskInformation} }) { id } }`;
    refused(await graphql(scene.gateway, tokens.internal, input(`Cyber${NUL}`, '{ employees: 3 }')));
    refused(await graphql(scene.gateway, tokens.internal, input('Cyber', `{ notes: ["fine", { deeper: "a${NUL}b" }] }`)));
    const byVariable =
      'mutation($risk: JSONObject) { createTender(input: { product: "Cyber", lineOfBusinessId: "L", brokerCompanyId: "B", customer: {}, submitter: { accountId: "u", email: "u@x.example", firstName: "U", lastName: "U" }, taxRate: 0.1, riskInformation: $risk }) { id } }';
    refused(await graphql(scene.gateway, tokens.internal, byVariable, { risk: { 'key\u0001': 1 } }));
    refused(await graphql(scene.gateway, tokens.internal, byVariable, { risk: { list: ['\u0007'] } }));
    expect(await em.count(Tender, {})).toBe(before);
    // The same document without the control character is stored.
    expect((await graphql(scene.gateway, tokens.internal, input('Cyber', '{ employees: 3 }'))).body.errors).toBeUndefined();
    expect(await em.fork().count(Tender, {})).toBe(before + 1);
  });

  it('requestQuotes with \\u{0} in its risk information is refused and no quote request is stored', async () => {
    const tender = await createTender(scene.gateway.em(), scene.world, { status: TenderStatus.QUOTES_AVAILABLE });
    const answer = await graphql(
      scene.gateway,
      tokens.broker,
      `mutation { requestQuotes(input: { tenderId: "${tender.id}", insurerIds: ["${scene.world.insurers[0].id}"], limits: [{ insuranceSum: 1000000, deductible: 1000 }],
        riskInformation: { typeOfBusiness: "Soft${NUL}ware", additional: { note: "x" } } }) { id } }`,
    );
    refused(answer);
    expect(await scene.gateway.em().count(QuoteRequest, { tender: tender.id })).toBe(0);
  });
});

describe('automatic persisted queries', () => {
  it('a sha256Hash that does not match the query is refused with 400 PERSISTED_QUERY_HASH_MISMATCH, logged below error level', async () => {
    const query = '{ __typename }';
    const send = (sha256Hash: string) =>
      fetch(`${scene.gateway.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.broker}` },
        body: JSON.stringify({ query, extensions: { persistedQuery: { version: 1, sha256Hash } } }),
      });
    const errorsBefore = logged.filter((line) => line.level >= 50).length;
    const mismatch = await send('0'.repeat(64));
    expect(mismatch.status).toBe(400);
    expect(await mismatch.json()).toEqual({
      errors: [
        {
          message: 'extensions.persistedQuery.sha256Hash is not the SHA-256 hash (hex) of the query sent with it',
          extensions: { code: 'PERSISTED_QUERY_HASH_MISMATCH' },
        },
      ],
    });
    expect(logged.filter((line) => line.level >= 50).slice(errorsBefore)).toEqual([]);
    expect(logged.some((line) => line.level === 40 && (line as any).res?.statusCode === 400)).toBe(true);

    const matching = await send(createHash('sha256').update(query).digest('hex'));
    expect([matching.status, await matching.json()]).toEqual([200, { data: { __typename: 'Query' } }]);
    // As Apollo documents it: a hash alone, unknown, asks the client for the query (200); once registered, it runs.
    const byHash = (sha256Hash: string) =>
      fetch(`${scene.gateway.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.broker}` },
        body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash } } }),
      });
    const unknown = await byHash('1'.repeat(64));
    expect([unknown.status, ((await unknown.json()) as any).errors[0].extensions.code]).toEqual([200, 'PERSISTED_QUERY_NOT_FOUND']);
    const registered = await byHash(createHash('sha256').update(query).digest('hex'));
    expect([registered.status, await registered.json()]).toEqual([200, { data: { __typename: 'Query' } }]);
  });
});
