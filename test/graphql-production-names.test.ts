import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { MAX_NAME_LENGTH } from '../src/api/graphql/request-screening';
import { ApiClientService } from '../src/auth';
import { createWorld } from './helpers/fixtures';
import { discardProductionData, freePort, productionData, spawnGateway, type GatewayProcess } from './helpers/gateway-process';

/**
 * Issue 25, item 1, against the production start (`dist/` under `npm run start:prod`'s heap cap): distinct documents
 * whose operation names are 240 000 characters long, from one broker token. Each name was kept in the compiled
 * documents' bookkeeping; about 640 of them filled the heap.
 */
let dataDir: string;
let gateway: GatewayProcess;
let token: string;

beforeAll(async () => {
  const prepared = await productionData('tender-exchange-names-');
  dataDir = prepared.dataDir;
  const { env, orm } = prepared;
  let credentials: { appId: string; secret: string };
  try {
    const world = await createWorld(orm.em.fork());
    const { client, secret } = await new ApiClientService(orm.em.fork()).create({
      role: Role.BROKER,
      brokerCompanyId: world.brokers[0].id,
    });
    credentials = { appId: client.appId, secret };
  } finally {
    await orm.close();
  }
  // The flood is sent faster than the default 600 a minute, so that the test takes seconds; the bytes are the same.
  gateway = await spawnGateway(dataDir, await freePort(), { ...env, RATE_LIMIT_PER_MINUTE: '100000' }, { production: true });
  const answer = await fetch(`${gateway.url}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ app_id: credentials.appId, secret: credentials.secret }),
  });
  token = ((await answer.json()) as { access_token: string }).access_token;
}, 180_000);

afterAll(() => discardProductionData(gateway, dataDir));

async function graphql(query: string) {
  const response = await fetch(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query }),
  });
  return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: { extensions: { code: string } }[] } };
}

describe('the production start under a flood of long operation names', () => {
  it(`refuses 1 000 distinct documents with 240 000-character operation names with 400, stays alive with its memory bounded, and answers names of ${MAX_NAME_LENGTH} characters`, async () => {
    const before = gateway.rssMiB();
    let peak = before;
    const filler = 'a'.repeat(240_000);
    const documents = 1000;
    for (let start = 0; start < documents; start += 4) {
      const answers = await Promise.all([0, 1, 2, 3].map((i) => graphql(`query N${start + i}${filler} { __typename }`)));
      for (const answer of answers) {
        expect(answer.status).toBe(400);
        expect(answer.body.errors?.[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
      }
      peak = Math.max(peak, gateway.rssMiB());
    }
    expect(gateway.alive()).toBe(true);
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    // 1 000 names of 240 000 characters are 240 MB: kept, they would be far beyond the 192 MB heap.
    expect(peak, `RSS ${before.toFixed(0)} → peak ${peak.toFixed(0)} MiB`).toBeLessThan(before + 100);
    // Names up to the limit still run, compiled from their second use.
    for (let use = 0; use < 3; use++) {
      const answer = await graphql(`query N${'b'.repeat(MAX_NAME_LENGTH - 1)} { __typename }`);
      expect([answer.status, answer.body]).toEqual([200, { data: { __typename: 'Query' } }]);
    }
  }, 300_000);
});
