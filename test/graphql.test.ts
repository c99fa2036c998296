import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { schemaSdl } from '../src/api/graphql/schema';
import { Insurer } from '../src/insurers';
import { TenderStatus } from '../src/tenders';
import { createTender } from './helpers/fixtures';
import { graphql, requestToken } from './helpers/gateway';
import { withGateway } from './helpers/scene';

const tokens: Record<string, string> = {};

const scene = withGateway({ per: 'file', world: true });

beforeAll(async () => {
  const em = scene.gateway.em();
  for (let i = 0; i < 6; i++)
    await createTender(em, scene.world, {
      status: i % 2 ? TenderStatus.CLOSED : TenderStatus.IN_NEGOTIATION,
      invited: [scene.world.insurers[0]],
    });
  tokens.internal = await scene.token(Role.INTERNAL);
  tokens.analyst = await scene.token(Role.ANALYST);
  tokens.broker = await scene.token(Role.BROKER);
  tokens.insurer = await scene.token(Role.INSURER);
});

describe('GraphQL API', () => {
  it('schema.graphql is the SDL the code emits (run `npm run schema:emit` when this fails)', async () => {
    expect(readFileSync('schema.graphql', 'utf8')).toBe(await schemaSdl());
  });

  it('lists tenders with the same filters, sort and paging as REST', async () => {
    const { body } = await graphql(
      scene.gateway,
      tokens.broker,
      `
        {
          tenders(status: [CLOSED], sort: [{ field: CREATED_AT, direction: ASC }], skip: 1, limit: 2) {
            count
            skip
            limit
            items {
              status
              createdAt
            }
          }
        }
      `,
    );
    expect(body.data.tenders.count).toBe(3);
    expect(body.data.tenders).toMatchObject({ skip: 1, limit: 2 });
    const created = body.data.tenders.items.map((t: { createdAt: string }) => t.createdAt);
    expect(created).toEqual([...created].sort());
    expect(body.data.tenders.items.every((t: { status: string }) => t.status === 'CLOSED')).toBe(true);
  });

  it('answers a repeated operation (compiled by graphql-jit from its second use) exactly as its first run', async () => {
    const page = `query($limit: Int!) {
      tenders(limit: $limit) { count items { id status taxRate customer { name address { city } } history { toStatus } proposal { taxRate entries { insurer { name } quoteRequest { status } } } } }
    }`;
    const missing = 'query($id: ID!) { tender(id: $id) { id } }';
    const thrice = async (role: string, query: string, variables: Record<string, unknown>) => {
      const runs = [];
      for (let i = 0; i < 3; i++) runs.push(await graphql(scene.gateway, tokens[role], query, variables));
      for (const run of runs.slice(1))
        expect({ status: run.status, body: run.body }, role).toEqual({ status: runs[0].status, body: runs[0].body });
      return runs[0];
    };
    for (const role of ['internal', 'insurer']) {
      expect((await thrice(role, page, { limit: 4 })).body.data.tenders.items.length, role).toBeGreaterThan(0);
      const notFound = await thrice(role, missing, { id: 'no-such-tender' });
      expect([notFound.status, notFound.body.errors[0].extensions.code]).toEqual([404, 'NOT_FOUND']);
    }
    const badVariables = await thrice('internal', page, { limit: 'four' });
    expect([badVariables.status, badVariables.body.errors[0].extensions.code]).toEqual([400, 'BAD_USER_INPUT']);
  });

  it('fills in the defaults of input objects on every run of a repeated operation (sort without its direction, by variable, inline and as the default of a variable)', async () => {
    const byVariable = 'query($sort: [TenderSort!]) { tenders(sort: $sort, limit: 3) { items { id } } }';
    const inline = '{ tenders(sort: [{ field: CREATED_AT }], limit: 3) { items { id } } }';
    const byDefault = 'query($sort: [TenderSort!] = [{ field: CREATED_AT }]) { tenders(sort: $sort, limit: 3) { items { id } } }';
    const ascending = await graphql(scene.gateway, tokens.internal, byVariable, { sort: [{ field: 'CREATED_AT', direction: 'ASC' }] });
    expect(ascending.body.data.tenders.items).toHaveLength(3);
    for (let run = 0; run < 3; run++) {
      for (const [query, variables] of [
        [byVariable, { sort: [{ field: 'CREATED_AT' }] }],
        [inline, {}],
        [byDefault, {}],
      ] as const) {
        const { status, body } = await graphql(scene.gateway, tokens.internal, query, variables);
        expect({ run, status, body }).toEqual({ run, status: 200, body: ascending.body });
      }
      const descending = await graphql(scene.gateway, tokens.internal, byVariable, { sort: [{ field: 'CREATED_AT', direction: 'DESC' }] });
      expect(descending.body.data.tenders.items).not.toEqual(ascending.body.data.tenders.items);
    }
  });

  it('answers a page size over 200 with BAD_USER_INPUT naming limit', async () => {
    const { body } = await graphql(scene.gateway, tokens.broker, '{ tenders(limit: 201) { count } }');
    expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: [{ parameter: 'limit' }] });
  });

  it('answers lines of business, insurers and me', async () => {
    const { body } = await graphql(
      scene.gateway,
      tokens.broker,
      '{ linesOfBusiness { name } insurers { name quoteApiUrl } me { appId role brokerCompany { name } } }',
    );
    expect(body.data.linesOfBusiness.map((l: { name: string }) => l.name)).toEqual(['Cyber', 'D&O']);
    expect(body.data.insurers).toHaveLength(3);
    expect(body.data.insurers[0].quoteApiUrl).toBeNull();
    expect(body.data.me).toMatchObject({ role: 'BROKER', brokerCompany: { name: 'First Brokers' } });
  });

  it('an insurer sees only itself among the insurers; internal users see the quote API URL', async () => {
    const insurer = await graphql(scene.gateway, tokens.insurer, '{ insurers { id } }');
    expect(insurer.body.data.insurers).toEqual([{ id: scene.world.insurers[0].id }]);
    const internal = await graphql(scene.gateway, tokens.internal, '{ insurers { quoteApiUrl } }');
    expect(internal.body.data.insurers[0].quoteApiUrl).toMatch(/^http:\/\/127\.0\.0\.1:1\//);
  });

  it('requires a token: none or an invalid one is a 401 with UNAUTHENTICATED', async () => {
    for (const token of [undefined, 'not-a-jwt']) {
      const { status, headers, body } = await graphql(scene.gateway, token, '{ me { appId } }');
      expect(status).toBe(401);
      expect(headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      expect(body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    }
  });

  it('gives every authenticated client the schema by introspection (an explorer needs it), and nobody without a token', async () => {
    const query = '{ __schema { queryType { name } } __type(name: "Tender") { name } }';
    for (const role of ['analyst', 'internal', 'broker', 'insurer']) {
      const { status, body } = await graphql(scene.gateway, tokens[role], query);
      expect(status, role).toBe(200);
      expect(body.data, role).toEqual({ __schema: { queryType: { name: 'Query' } }, __type: { name: 'Tender' } });
    }
    const anonymous = await graphql(scene.gateway, undefined, query);
    expect(anonymous.status).toBe(401);
  });

  it('refuses an introspection query that cycles through the schema (fields of types of fields...), whoever sends it', async () => {
    const cycling = '{ __schema { types { fields { type { fields { type { fields { type { fields { name } } } } } } } } } }';
    const { status, body } = await graphql(scene.gateway, tokens.broker, cycling);
    expect(status).toBe(400);
    expect(body.errors[0].message).toMatch(/Maximum introspection depth exceeded/);
  });

  it('serves Apollo Sandbox to browsers at /graphql without a token', async () => {
    const response = await fetch(`${scene.gateway.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/<!DOCTYPE html>/i);
  });

  it('hides internal errors and reports syntax errors with GRAPHQL_PARSE_FAILED', async () => {
    const { body } = await graphql(scene.gateway, tokens.broker, '{ tenders { ');
    expect(body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(JSON.stringify(body)).not.toMatch(/stack|at .*\.ts/);
  });
});

describe('GraphQL mutations for operators', () => {
  it('createInsurer and createApiClient give working credentials for the new insurer', async () => {
    const created = await graphql(
      scene.gateway,
      tokens.internal,
      'mutation { createInsurer(input: { name: "Delta Insurance", quoteApiUrl: "https://quotes.delta.example/api/" }) { id name quoteApiUrl } }',
    );
    expect(created.body.data.createInsurer).toMatchObject({ name: 'Delta Insurance', quoteApiUrl: 'https://quotes.delta.example/api' });
    const insurerId = created.body.data.createInsurer.id;
    const client = await graphql(
      scene.gateway,
      tokens.internal,
      'mutation($id: ID!) { createApiClient(input: { role: INSURER, insurerId: $id }) { appId secret role insurer { name } } }',
      { id: insurerId },
    );
    const { appId, secret } = client.body.data.createApiClient;
    expect(client.body.data.createApiClient.insurer.name).toBe('Delta Insurance');
    const token = await requestToken(scene.gateway, { appId, secret });
    const me = await graphql(scene.gateway, token, '{ me { appId role insurer { id } } }');
    expect(me.body.data.me).toEqual({ appId, role: 'INSURER', insurer: { id: insurerId } });
  });

  it('validates mutation input field by field', async () => {
    const badUrl = await graphql(
      scene.gateway,
      tokens.internal,
      'mutation { createInsurer(input: { name: " ", quoteApiUrl: "ftp://x" }) { id } }',
    );
    expect(badUrl.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(badUrl.body.errors[0].extensions.errors.map((e: { parameter: string }) => e.parameter).sort()).toEqual(['name', 'quoteApiUrl']);
    const duplicate = await graphql(
      scene.gateway,
      tokens.internal,
      'mutation { createInsurer(input: { name: "Alpha Insurance", quoteApiUrl: "http://a.example" }) { id } }',
    );
    expect(duplicate.body.errors[0].extensions.code).toBe('CONFLICT');
    const unbound = await graphql(scene.gateway, tokens.internal, 'mutation { createApiClient(input: { role: BROKER }) { appId } }');
    expect(unbound.body.errors[0].extensions.errors[0]).toMatchObject({ parameter: 'brokerCompanyId' });
  });

  it('concurrent createInsurer calls with one name give one insurer and CONFLICT for the rest, never a 500', async () => {
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        graphql(
          scene.gateway,
          tokens.internal,
          'mutation { createInsurer(input: { name: "Racing Insurance", quoteApiUrl: "http://r.example" }) { id } }',
        ),
      ),
    );
    expect(results.filter((r) => !r.body.errors)).toHaveLength(1);
    for (const r of results.filter((r) => r.body.errors)) expect(r.body.errors[0].extensions.code).toBe('CONFLICT');
  });

  it('refuses mutations to analysts, brokers and insurers with FORBIDDEN and changes nothing', async () => {
    const before = await scene.gateway.em().count(Insurer);
    for (const role of ['analyst', 'broker', 'insurer']) {
      const { body } = await graphql(
        scene.gateway,
        tokens[role],
        'mutation { createInsurer(input: { name: "Sneaky", quoteApiUrl: "http://x.example" }) { id } }',
      );
      expect(body.errors[0].extensions.code, role).toBe('FORBIDDEN');
      const client = await graphql(scene.gateway, tokens[role], 'mutation { createApiClient(input: { role: INTERNAL }) { appId } }');
      expect(client.body.errors[0].extensions.code, role).toBe('FORBIDDEN');
    }
    expect(await scene.gateway.em().count(Insurer)).toBe(before);
  });
});
