import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { OperationGate } from '../src/api/graphql/operation-gate';
import { RowBudget } from '../src/platform/db/row-budget';
import { DomainError } from '../src/platform/errors/domain-error';
import { TenderHistoryEntry, TenderStatus } from '../src/tenders';
import { MAX_BODY_DEPTH, MAX_JSON_FIELD_DEPTH } from '../src/platform/validation/json';
import { createTender, createWorld } from './helpers/fixtures';
import { graphql, startGateway, tokenFor, type Gateway } from './helpers/gateway';
import { withGateway } from './helpers/scene';

const tokens: Record<string, string> = {};

const scene = withGateway({ per: 'file', env: { GRAPHQL_MAX_ROWS: '100' }, world: true });

beforeAll(async () => {
  tokens.internal = await scene.token(Role.INTERNAL);
  tokens.broker = await scene.token(Role.BROKER);
});

/** `{"a":{"a":...{"a":1}}}`, `depth` objects deep. */
const nested = (depth: number): Record<string, unknown> => {
  let value: Record<string, unknown> = { leaf: 1 };
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
};

const CREATE_TENDER = 'mutation($input: CreateTenderInput!) { createTender(input: $input) { id } }';
const tenderInput = (riskInformation: unknown) => ({
  product: 'Cyber Protect',
  lineOfBusinessId: scene.world.lines.cyber.id,
  brokerCompanyId: scene.world.brokers[0].id,
  customer: { companyId: 'C-1', name: 'Acme' },
  submitter: { accountId: 'u1', email: 'u1@broker.example', firstName: 'Ute', lastName: 'Ulm' },
  taxRate: 0.19,
  riskInformation,
});

describe('GraphQL input and cost limits', () => {
  it('refuses free-form JSON nested deeper than the documented depth with BAD_USER_INPUT, in variables and in literals', async () => {
    expect(
      (await graphql(scene.gateway, tokens.internal, CREATE_TENDER, { input: tenderInput(nested(MAX_JSON_FIELD_DEPTH)) })).status,
    ).toBe(200);
    const deep = await graphql(scene.gateway, tokens.internal, CREATE_TENDER, { input: tenderInput(nested(MAX_JSON_FIELD_DEPTH + 1)) });
    expect(deep.status).toBe(400);
    expect(deep.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(deep.body.errors[0].message).toContain(`JSON nested deeper than ${MAX_JSON_FIELD_DEPTH} levels`);

    const literal = `mutation { createTender(input: { product: "P", lineOfBusinessId: "${scene.world.lines.cyber.id}", brokerCompanyId: "${scene.world.brokers[0].id}",
      customer: { companyId: "C", name: "N" }, submitter: { accountId: "u", email: "u@x.example", firstName: "F", lastName: "L" }, taxRate: 0.1,
      riskInformation: ${'{ a: '.repeat(MAX_JSON_FIELD_DEPTH + 1)}1${' }'.repeat(MAX_JSON_FIELD_DEPTH + 1)} }) { id } }`;
    const refused = await graphql(scene.gateway, tokens.internal, literal);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].message).toContain(`JSON nested deeper than ${MAX_JSON_FIELD_DEPTH} levels`);
  });

  it('refuses a body of 5 000 nested levels (30 KB) with a 400 naming the depth limit, never a 500', async () => {
    // Written out by hand: JSON.stringify itself overflows the stack at this depth.
    const template = JSON.stringify({ query: CREATE_TENDER, variables: { input: tenderInput('RISK') } });
    const risk = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const response = await fetch(`${scene.gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.internal}` },
      body: template.replace('"RISK"', risk),
    });
    expect(response.status).toBe(400);
    const body: any = await response.json();
    expect(body.code).toBe('BAD_USER_INPUT');
    expect(body.detail).toBe(`The request body nests JSON deeper than ${MAX_BODY_DEPTH} levels`);
    const callback = await fetch(`${scene.gateway.url}/aggregation-gateway/v1/public/producer-integration/quotes/available`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.broker}` },
      body: `${'['.repeat(1000)}${']'.repeat(1000)}`,
    });
    expect(callback.status).toBe(400);
  });

  it('shows no "did you mean" suggestions: not for fields, arguments, types, nor enum values in literals and variables', async () => {
    // Each with the name graphql-js would suggest.
    const attempts: [string, Record<string, unknown>, string][] = [
      ['{ tendrs { count } }', {}, '"tenders"'],
      ['{ tenders(limt: 1) { count } }', {}, '"limit"'],
      ['{ tenders(status: [CLOSD]) { count } }', {}, '"CLOSED"'],
      ['query($s: [TenderStatus!]) { tenders(status: $s) { count } }', { s: ['CLOSD'] }, '"CLOSED"'],
      ['query($s: [TenderStatu!]) { tenders(status: $s) { count } }', {}, '"TenderStatus"'],
    ];
    for (const [query, variables, suggestion] of attempts) {
      const { status, body } = await graphql(scene.gateway, tokens.broker, query, variables);
      expect(status, query).toBe(400);
      const messages = body.errors.map((error: { message: string }) => error.message).join(' | ');
      expect(messages, query).not.toMatch(/did you mean|suggestion/i);
      expect(messages, query).not.toContain(suggestion);
    }
  });

  it('stops an operation that reads more rows than the limit while it runs, whatever the estimate assumed', async () => {
    const em = scene.gateway.em();
    const tender = await createTender(em, scene.world, { status: TenderStatus.CLOSED });
    // Far more status changes than the estimate assumes for one history.
    for (let i = 0; i < 150; i++) {
      em.create(TenderHistoryEntry, {
        tender,
        at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
        actor: 'x',
        actorRole: Role.INTERNAL,
        fromStatus: TenderStatus.CLOSED,
        toStatus: TenderStatus.REOPENED,
        reason: null,
      });
    }
    await em.flush();
    const { status, body } = await graphql(scene.gateway, tokens.internal, 'query($id: ID!) { tender(id: $id) { id history { at } } }', {
      id: tender.id,
    });
    expect(status).toBe(400);
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(body.errors[0].message).toMatch(/read more than 100 rows/);
  });

  it('refuses before running an operation whose estimate exceeds the limit, counting each page by its limit', async () => {
    const { status, body } = await graphql(
      scene.gateway,
      tokens.broker,
      '{ a: tenders(limit: 60) { items { id } } b: tenders(limit: 60) { items { id } } }',
    );
    expect(status).toBe(400);
    expect(body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(body.errors[0].message).toContain('may read up to 122 rows; at most 100');
  });

  it('prices one document by the variables of each request: a page within the limit, then too large, then within it again', async () => {
    const page = 'query ($limit: Int!) { tenders(limit: $limit) { items { id } } }';
    const answers = [];
    for (const limit of [40, 120, 40, 120]) answers.push(await graphql(scene.gateway, tokens.broker, page, { limit }));
    expect(answers.map(({ status }) => status)).toEqual([200, 400, 200, 400]);
    expect(answers[1].body.errors[0].message).toContain('may read up to 121 rows; at most 100');
    expect(answers[3].body.errors[0].message).toContain('may read up to 121 rows; at most 100');
    expect(answers[2].body.data.tenders.items).toEqual(answers[0].body.data.tenders.items);
    expect(
      (await graphql(scene.gateway, tokens.broker, '{ a: tenders(limit: 40) { items { id } } b: tenders(limit: 40) { items { id } } }'))
        .status,
    ).toBe(200);
  });
});

describe('the row budget of one operation', () => {
  it('runs at most two of its reads at once, so one operation cannot take every database connection, and counts their rows', async () => {
    const budget = new RowBudget(100);
    let running = 0;
    let most = 0;
    const read = () =>
      budget.read(
        async () => {
          most = Math.max(most, ++running);
          await new Promise((resolve) => setTimeout(resolve, 10));
          running--;
          return 20;
        },
        (rows) => rows,
      );
    await Promise.all([read(), read(), read(), read(), read()]);
    expect(most).toBe(2);
    expect(budget.remaining).toBe(0);
    await expect(read()).rejects.toThrow(/read more than 100 rows/);
  });
});

describe('the gate for expensive operations', () => {
  it('gives a slot back when another rule refused the request (a control character in a variable) while it waited in line', async () => {
    const gated = await startGateway({
      env: {
        GRAPHQL_MAX_ROWS: '100000',
        GRAPHQL_EXPENSIVE_ROWS: '1',
        GRAPHQL_EXPENSIVE_CONCURRENCY: '1',
        GRAPHQL_QUEUE_TIMEOUT_MS: '5000',
      },
    });
    try {
      const world = await createWorld(gated.em());
      for (let i = 0; i < 200; i++) await createTender(gated.em(), world, { status: TenderStatus.CLOSED });
      const [internal, other, broker] = [
        await tokenFor(gated, Role.INTERNAL),
        await tokenFor(gated, Role.INTERNAL),
        await tokenFor(gated, Role.BROKER, { brokerCompanyId: world.brokers[0].id }),
      ];
      // Holds the one slot for a while: five pages of 200 tenders with their proposals and histories.
      const page =
        'tenders(limit: 200) { items { id product customer { name } proposal { taxRate entries { insurer { name } } } history { at } } }';
      const holder = graphql(gated, internal, `{ ${[1, 2, 3, 4, 5].map((i) => `p${i}: ${page}`).join(' ')} }`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      // Refused at once for its control character, while its operation waits for the slot.
      const refused = await graphql(gated, broker, 'query($line: ID) { tenders(limit: 5, lineOfBusinessId: $line) { count } }', {
        line: 'cyber\u0001',
      });
      expect(refused.status).toBe(400);
      expect((await holder).status).toBe(200);
      const served = await graphql(gated, other, '{ tenders(limit: 5) { count } }');
      expect(served.status).toBe(200);
      expect(served.body.data.tenders.count).toBe(200);
    } finally {
      await gated.close();
    }
  }, 30_000);

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: DomainError) => error.code,
    );

  it('runs at most its concurrency at once, lets the next in line in when one ends, and turns away one that waited too long', async () => {
    const gate = new OperationGate(1, 100, 4);
    const releaseA = await gate.enter('a');
    const b = gate.enter('b');
    const c = gate.enter('c');
    releaseA();
    const releaseB = await b;
    expect(await refusal(c)).toBe('SERVICE_UNAVAILABLE');
    releaseB();
    (await gate.enter('c'))();
  });

  it("runs a client's expensive operations one at a time, the next waiting its turn: one beyond its line is refused at once, one that waited too long too", async () => {
    const gate = new OperationGate(2, 200, 1);
    const first = await gate.enter('a');
    const second = gate.enter('a');
    // Its line holds one: the third is refused at once, while another client still gets the second slot.
    expect(await refusal(gate.enter('a'))).toBe('SERVICE_UNAVAILABLE');
    const other = await gate.enter('b');
    first();
    const releaseSecond = await second;
    other();
    // Waiting past the bound behind its own running operation: refused, and the line goes on.
    expect(await refusal(gate.enter('a'))).toBe('SERVICE_UNAVAILABLE');
    releaseSecond();
    (await gate.enter('a'))();
  });
});

describe('expensive operations of one client (issue 37)', () => {
  let gated: Gateway;
  let broker: string;
  let otherBroker: string;
  const tenders: string[] = [];

  beforeAll(async () => {
    gated = await startGateway({ env: { GRAPHQL_QUEUE_TIMEOUT_MS: '10000', GRAPHQL_QUEUE_PER_CLIENT: '2' } });
    const world = await createWorld(gated.em());
    const internal = await tokenFor(gated, Role.INTERNAL);
    broker = await tokenFor(gated, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
    otherBroker = await tokenFor(gated, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
    const insurers: string[] = [];
    for (const name of ['Paper One', 'Paper Two', 'Paper Three']) {
      const created = await graphql(gated, internal, `mutation { createInsurer(input: { name: "${name}", integration: MANUAL }) { id } }`);
      insurers.push(created.body.data.createInsurer.id);
    }
    for (let i = 0; i < 200; i++) tenders.push((await createTender(gated.em(), world)).id);
    for (const tenderId of tenders.slice(0, 3)) {
      const asked = await graphql(gated, broker, 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }', {
        input: {
          tenderId,
          insurerIds: insurers,
          limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }],
          riskInformation: { turnover: { amount: 5_000_000, currency: 'EUR' }, typeOfBusiness: 'IT services' },
        },
      });
      expect(asked.body.errors).toBeUndefined();
    }
  }, 120_000);

  afterAll(() => gated?.close());

  const POLL = 'query($id: ID!) { quoteRequests(tenderId: $id) { id status riskInformation } }';
  /** Four pages of 200 tenders with their histories: 8 804 rows estimated, an expensive operation. */
  const EXPENSIVE = `{ ${[1, 2, 3, 4].map((i) => `p${i}: tenders(limit: 200) { items { id history { at } } }`).join(' ')} }`;

  it("a broker polling three tenders' risk information at once gets three answers: each is priced by what its tender holds", async () => {
    const polls = await Promise.all(tenders.slice(0, 3).map((id) => graphql(gated, broker, POLL, { id })));
    expect(polls.map(({ status, body }) => [status, body.errors, body.data?.quoteRequests.length])).toEqual([
      [200, undefined, 3],
      [200, undefined, 3],
      [200, undefined, 3],
    ]);
    expect(polls[0].body.data.quoteRequests[0].riskInformation).toMatchObject({ type_of_business: 'IT services' });
  });

  it("a client's expensive operations sent at once wait their turn and all answer", async () => {
    const answers = await Promise.all([1, 2, 3].map(() => graphql(gated, broker, EXPENSIVE)));
    expect(answers.map(({ status, body }) => [status, body.errors, body.data?.p4.items.length])).toEqual([
      [200, undefined, 200],
      [200, undefined, 200],
      [200, undefined, 200],
    ]);
  }, 60_000);

  it("a flood of one client's expensive operations is refused beyond its line with 503 and Retry-After; another client is served meanwhile", async () => {
    const flood = Array.from({ length: 12 }, () => graphql(gated, broker, EXPENSIVE));
    // The flood holds one of the two slots at most: another client's expensive operation gets the other.
    const other = await graphql(gated, otherBroker, EXPENSIVE);
    expect([other.status, other.body.errors]).toEqual([200, undefined]);
    const answers = await Promise.all(flood);
    const refused = answers.filter(({ status }) => status === 503);
    // One running and two waiting at most at any time: of twelve sent at once, some are refused, some served in turn.
    expect(refused.length).toBeGreaterThanOrEqual(3);
    expect(answers.filter(({ status }) => status === 200).length).toBeGreaterThanOrEqual(3);
    for (const answer of refused) {
      expect(answer.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(10);
    }
    expect(answers.every(({ status }) => status === 200 || status === 503)).toBe(true);
  }, 60_000);
});
