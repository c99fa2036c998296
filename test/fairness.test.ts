import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../src/auth';
import { Role } from '../src/access';
import { createWorld } from './helpers/fixtures';
import { createClient, graphql, requestToken, startGateway, type Credentials, type Gateway } from './helpers/gateway';
import { waitFor } from './helpers/simulator';

/**
 * DESIGN 6, fairness: one client, or one address, cannot lock out another. The gateway listens as `npm start` does
 * (dual stack), and the clients come from different loopback addresses.
 */
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** An HTTP request sent from `localAddress` (127.0.0.2, 127.0.0.3, ...), as a client elsewhere would. */
function from(
  localAddress: string,
  gateway: Gateway,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      `${gateway.url}${path}`,
      { method, localAddress, headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) } },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const tokenRequest = (address: string, gateway: Gateway, credentials: Credentials, headers: Record<string, string> = {}) =>
  from(address, gateway, 'POST', '/auth/token', headers, { app_id: credentials.appId, secret: credentials.secret });
const wrongSecret = (credentials: Credentials): Credentials => ({ ...credentials, secret: 'not-the-secret' });

const gateways: Gateway[] = [];
async function gatewayWith(env: Record<string, string>): Promise<Gateway> {
  const gateway = await startGateway({ host: '::', env: { RATE_LIMIT_STORE: 'memory', ...env } });
  gateways.push(gateway);
  return gateway;
}
afterAll(async () => {
  for (const gateway of gateways) await gateway.close();
});

describe('failed token requests', () => {
  let gateway: Gateway;
  let victim: Credentials;
  let bystander: Credentials;

  beforeAll(async () => {
    gateway = await gatewayWith({ AUTH_RATE_LIMIT: '3' });
    const world = await createWorld(gateway.em());
    victim = await createClient(gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
    bystander = await createClient(gateway, Role.INTERNAL);
  });

  it('lock out only the attacking address for the attacked app_id: the client logs in from elsewhere, others from the same address', async () => {
    for (let i = 0; i < 3; i++) expect((await tokenRequest('127.0.0.2', gateway, wrongSecret(victim))).status).toBe(401);
    const locked = await tokenRequest('127.0.0.2', gateway, victim);
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe('RATE_LIMITED');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);

    expect((await tokenRequest('127.0.0.3', gateway, victim)).status).toBe(200);
    expect((await tokenRequest('127.0.0.2', gateway, bystander)).status).toBe(200);
  });
});

describe('the per-client request limit', () => {
  let gateway: Gateway;
  let broker: Credentials;

  beforeAll(async () => {
    gateway = await gatewayWith({ RATE_LIMIT_PER_MINUTE: '5' });
    const world = await createWorld(gateway.em());
    broker = await createClient(gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
  });

  it('counts unauthenticated requests per IPv4 address: one noisy address does not block token issuance for the others', async () => {
    for (let i = 0; i < 5; i++) expect((await from('127.0.0.2', gateway, 'GET', '/api/v1/tenders')).status).toBe(401);
    expect((await from('127.0.0.2', gateway, 'GET', '/api/v1/tenders')).status).toBe(429);
    expect((await tokenRequest('127.0.0.3', gateway, broker)).status).toBe(200);
  });

  it('does not let a revoked token drain its client: the leaked token counts against its address, the client keeps its quota', async () => {
    const leaked = await requestToken(gateway, broker);
    const own = await requestToken(gateway, broker);
    expect((await from('127.0.0.4', gateway, 'POST', '/auth/token-revoke', { authorization: `Bearer ${leaked}` })).status).toBe(200);
    for (let i = 0; i < 6; i++)
      expect([401, 429]).toContain(
        (await from('127.0.0.4', gateway, 'GET', '/api/v1/tenders', { authorization: `Bearer ${leaked}` })).status,
      );
    const served = await from('127.0.0.5', gateway, 'GET', '/api/v1/tenders?limit=1', { authorization: `Bearer ${own}` });
    expect(served.status).toBe(200);
  });
});

describe('TRUST_PROXY', () => {
  it('off (the default): X-Forwarded-For is ignored, so a client cannot pick its own address', async () => {
    const gateway = await gatewayWith({ AUTH_RATE_LIMIT: '2' });
    const client = await createClient(gateway, Role.INTERNAL);
    for (const forwarded of ['203.0.113.1', '203.0.113.2']) {
      expect((await tokenRequest('127.0.0.2', gateway, wrongSecret(client), { 'x-forwarded-for': forwarded })).status).toBe(401);
    }
    expect((await tokenRequest('127.0.0.2', gateway, client, { 'x-forwarded-for': '203.0.113.3' })).status).toBe(429);
  });

  it('set to the proxy: the address in X-Forwarded-For is the client, each counted on its own', async () => {
    const gateway = await gatewayWith({ AUTH_RATE_LIMIT: '2', TRUST_PROXY: 'loopback' });
    const client = await createClient(gateway, Role.INTERNAL);
    for (let i = 0; i < 2; i++)
      expect((await tokenRequest('127.0.0.2', gateway, wrongSecret(client), { 'x-forwarded-for': '203.0.113.1' })).status).toBe(401);
    expect((await tokenRequest('127.0.0.2', gateway, client, { 'x-forwarded-for': '203.0.113.1' })).status).toBe(429);
    expect((await tokenRequest('127.0.0.2', gateway, client, { 'x-forwarded-for': '203.0.113.2' })).status).toBe(200);
  });
});

describe('disabling and rotating API clients', () => {
  let gateway: Gateway;
  let other: Gateway;
  let internal: string;

  beforeAll(async () => {
    gateway = await gatewayWith({});
    // Another instance on the same database.
    other = await startGateway({ dataDir: gateway.dataDir });
    gateways.push(other);
    internal = await requestToken(gateway, await createClient(gateway, Role.INTERNAL));
  });

  const me = (instance: Gateway, token: string) => graphql(instance, token, '{ me { appId } }');
  /** The other instance hears of a change within TOKEN_STANDING_RECONCILE_MS (1 s; NOTIFY on PostgreSQL, sooner). */
  const refusedWithin = (instance: Gateway, token: string) =>
    waitFor(
      'the refusal',
      async () => {
        const answer = await me(instance, token);
        return answer.status === 401 && answer;
      },
      2_000,
    );

  it("disableApiClient refuses the client's tokens at once on its instance, within the bound on the others, and issues none; enableApiClient issues again, old tokens stay refused", async () => {
    const client = await createClient(gateway, Role.ANALYST);
    const token = await requestToken(gateway, client);
    expect((await me(other, token)).status).toBe(200);

    const disabled = await graphql(gateway, internal, 'mutation($id: String!) { disableApiClient(appId: $id) { appId disabledAt } }', {
      id: client.appId,
    });
    expect(disabled.body.data.disableApiClient.disabledAt).toEqual(expect.any(String));
    for (const refused of [await me(gateway, token), await refusedWithin(other, token)]) {
      expect(refused.status).toBe(401);
      expect(refused.body.errors[0].message).toBe('The API client of this access token is disabled');
    }
    await expect(requestToken(gateway, client)).rejects.toThrow(/401.*disabled/);

    await graphql(gateway, internal, 'mutation($id: String!) { enableApiClient(appId: $id) { appId } }', { id: client.appId });
    expect((await me(other, await requestToken(gateway, client))).status).toBe(200);
    expect((await me(other, token)).status).toBe(401);
  });

  it('rotateApiClientSecret: the old secret stops working, tokens stay valid unless revokeTokens', async () => {
    const client = await createClient(gateway, Role.ANALYST);
    const token = await requestToken(gateway, client);
    const rotate = (revokeTokens: boolean) =>
      graphql(
        gateway,
        internal,
        'mutation($id: String!, $revoke: Boolean!) { rotateApiClientSecret(appId: $id, revokeTokens: $revoke) { appId secret } }',
        {
          id: client.appId,
          revoke: revokeTokens,
        },
      );
    const { secret } = (await rotate(false)).body.data.rotateApiClientSecret;
    await expect(requestToken(gateway, client)).rejects.toThrow(/401/);
    const fresh = await requestToken(gateway, { ...client, secret });
    expect((await me(other, token)).status).toBe(200);

    await rotate(true);
    for (const old of [token, fresh]) expect((await me(gateway, old)).status).toBe(401);
    for (const old of [token, fresh]) expect((await refusedWithin(other, old)).status).toBe(401);
  });

  it('refuses the tokens of a deleted client within the bound', async () => {
    const client = await createClient(gateway, Role.ANALYST);
    const token = await requestToken(gateway, client);
    await gateway.em().nativeDelete(ApiClient, { appId: client.appId });
    const refused = await refusedWithin(other, token);
    expect(refused.status).toBe(401);
    expect(refused.body.errors[0].message).toBe('The API client of this access token no longer exists');
  });

  it('only internal tokens may disable, enable or rotate', async () => {
    const analyst = await requestToken(gateway, await createClient(gateway, Role.ANALYST));
    const { status, body } = await graphql(gateway, analyst, 'mutation { disableApiClient(appId: "x") { appId } }');
    expect([status, body.errors[0].extensions.code]).toEqual([403, 'FORBIDDEN']);
    const unknown = await graphql(gateway, internal, 'mutation { disableApiClient(appId: "no-such-client") { appId } }');
    expect([unknown.status, unknown.body.errors[0].extensions.code]).toEqual([404, 'NOT_FOUND']);
  });
});

describe('tokens', () => {
  let gateway: Gateway;
  let client: Credentials;

  beforeAll(async () => {
    gateway = await gatewayWith({});
    client = await createClient(gateway, Role.ANALYST);
  });

  it('refuses an expiry less than 60 seconds ahead with 400: no token that expires before it can be used', async () => {
    const expiry = new Date(Date.now() + 500).toISOString();
    const { status, body } = await from(
      '127.0.0.1',
      gateway,
      'POST',
      '/auth/token',
      {},
      { app_id: client.appId, secret: client.secret, expiry },
    );
    expect(status).toBe(400);
    expect(body.errors).toEqual([{ pointer: '/expiry', message: 'must lie at least 60 seconds ahead' }]);
    const enough = new Date(Date.now() + 90_000).toISOString();
    expect(
      (await from('127.0.0.1', gateway, 'POST', '/auth/token', {}, { app_id: client.appId, secret: client.secret, expiry: enough })).status,
    ).toBe(200);
  });

  it('accepts the Bearer scheme in any case, followed by one or more spaces (RFC 6750)', async () => {
    const token = await requestToken(gateway, client);
    for (const scheme of ['bearer ', 'BEARER ', 'Bearer ', 'Bearer   ']) {
      const { status } = await from(
        '127.0.0.1',
        gateway,
        'POST',
        '/graphql',
        { authorization: `${scheme}${token}` },
        { query: '{ me { appId } }' },
      );
      expect(status, scheme).toBe(200);
    }
  });
});
