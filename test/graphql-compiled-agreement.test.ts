import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { QuoteRequest } from '../src/quotes';
import { createTender } from './helpers/fixtures';
import { graphql } from './helpers/gateway';
import { withGateway } from './helpers/scene';

/**
 * docs/graphql.md: a document a client sends again is compiled by graphql-jit at its second use, and the answer is
 * the same either way. Each case runs three times: the first through graphql-js, the third compiled.
 */
let internal: string;

const scene = withGateway({ per: 'file', dispatch: false, world: true });

beforeAll(async () => {
  for (const product of ['Cyber A', 'Cyber B', 'Cyber C']) await createTender(scene.gateway.em(), scene.world, { product });
  internal = await scene.token(Role.INTERNAL);
});

/** The three answers of one document sent three times, each as `{ status, body }`. */
async function thrice(query: string, variables: Record<string, unknown> = {}) {
  const runs = [];
  for (let run = 0; run < 3; run++) {
    const { status, body } = await graphql(scene.gateway, internal, query, variables);
    runs.push({ status, body });
  }
  return runs;
}

/** Variables as a client's JSON carries them: `__proto__` an ordinary key (JSON.parse keeps it, an object literal would not). */
const fromJson = (text: string): Record<string, unknown> => JSON.parse(text);

describe('a repeated document answers the same compiled as interpreted', () => {
  it('an input-object field whose variable is left out takes its default on every run (no 500)', async () => {
    const query = 'query($d: SortDirection) { tenders(sort: [{ field: PRODUCT, direction: $d }], limit: 3) { items { product } } }';
    const runs = await thrice(query);
    expect(runs[0]).toEqual({
      status: 200,
      body: { data: { tenders: { items: [{ product: 'Cyber A' }, { product: 'Cyber B' }, { product: 'Cyber C' }] } } },
    });
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[2]).toEqual(runs[0]);
  });

  it.each(['constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__proto__'])(
    'a variable named %s is read on every run, given or left out',
    async (name) => {
      const query = `query($${name}: Int) { tenders(limit: $${name}) { limit } }`;
      const given = await thrice(query, fromJson(`{"${name}": 2}`));
      expect(given[0]).toEqual({ status: 200, body: { data: { tenders: { limit: 2 } } } });
      expect(given[1]).toEqual(given[0]);
      expect(given[2]).toEqual(given[0]);
      const leftOut = await thrice(query.replace('Int)', 'Int = 3)'));
      expect(leftOut[0]).toEqual({ status: 200, body: { data: { tenders: { limit: 3 } } } });
      expect(leftOut[1]).toEqual(leftOut[0]);
      expect(leftOut[2]).toEqual(leftOut[0]);
    },
  );

  it('an alias __proto__ is answered on every run', async () => {
    const runs = await thrice('{ __proto__: __typename constructor: __typename page: tenders(limit: 1) { limit } }');
    expect(runs[0].status).toBe(200);
    expect(JSON.stringify(runs[0].body)).toBe('{"data":{"__proto__":"Query","constructor":"Query","page":{"limit":1}}}');
    expect(runs[1]).toEqual(runs[0]);
    expect(JSON.stringify(runs[2].body)).toBe(JSON.stringify(runs[0].body));
  });

  it('a __proto__ key in the risk information of requestQuotes is stored and answered alike on every run, in a literal and in a variable', async () => {
    const tenders = await Promise.all(
      ['Risk A', 'Risk B', 'Risk C'].map((product) => createTender(scene.gateway.em(), scene.world, { product })),
    );
    const input = (additional: string) =>
      `{ tenderId: $tender, insurerIds: [$insurer], limits: [{ insuranceSum: 1000000, deductible: 1000 }], riskInformation: { additional: ${additional} } }`;
    const literal = `mutation($tender: ID!, $insurer: ID!) { requestQuotes(input: ${input('{ __proto__: { polluted: true }, employees: 12 }')}) { status insurer { name } } }`;
    const byVariable = `mutation($tender: ID!, $insurer: ID!, $additional: JSONObject) { requestQuotes(input: ${input('$additional')}) { status insurer { name } } }`;
    const additional = fromJson('{"__proto__": {"polluted": true}, "employees": 12}');
    // A tender per run: the same document each time, asking another tender's quotes.
    for (const [query, insurer] of [
      [literal, scene.world.insurers[0]],
      [byVariable, scene.world.insurers[1]],
    ] as const) {
      const runs = [];
      for (const tender of tenders)
        runs.push(await graphql(scene.gateway, internal, query, { tender: tender.id, insurer: insurer.id, additional }));
      expect(runs[0].body).toEqual({ data: { requestQuotes: [{ status: 'QUEUED', insurer: { name: insurer.name } }] } });
      expect(runs[1].body).toEqual(runs[0].body);
      expect(runs[2].body).toEqual(runs[0].body);
    }
    const stored = await scene.gateway
      .em()
      .find(QuoteRequest, { tender: { $in: tenders.map((tender) => tender.id) } }, { populate: ['riskInformation'] });
    expect(stored).toHaveLength(6);
    // What is stored is what is sent to the insurer (spec 2.3 risk_information).
    for (const request of stored)
      expect(JSON.stringify(request.riskInformation)).toBe('{"__proto__":{"polluted":true},"employees":12,"customer_name":"Acme GmbH"}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
