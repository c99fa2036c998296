import jwt from 'jsonwebtoken';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../src/auth';
import { Role } from '../src/access';
import { RateLimitCounter } from '../src/platform/http/rate-limit-counter.entity';
import { createWorld } from './helpers/fixtures';
import { TEST_JWT_SECRET, createClient, json, getJson, requestToken, startGateway, type Credentials } from './helpers/gateway';
import { awayFromWindowEdge } from './helpers/rate-limit-window';
import { withGateway } from './helpers/scene';

let broker: Credentials;

const postToken = (body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  fetch(`${scene.gateway.url}/auth/token`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });

const revoke = (token: string, init: RequestInit = {}) =>
  fetch(`${scene.gateway.url}/auth/token-revoke`, {
    method: 'POST',
    ...init,
    headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) },
  });

const scene = withGateway({ per: 'file', world: true });

beforeAll(async () => {
  broker = await createClient(scene.gateway, Role.BROKER, { brokerCompanyId: scene.world.brokers[0].id });
});

describe('POST /auth/token', () => {
  it('issues a JWT with the documented claims and a 60-minute default expiry', async () => {
    const before = Date.now();
    const response = await postToken({ app_id: broker.appId, secret: broker.secret });
    const after = Date.now();
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await json(response);
    expect(body.expiry).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    // exp is in whole seconds: at most one second before "60 minutes after the request".
    expect(Date.parse(body.expiry)).toBeGreaterThanOrEqual(before + 60 * 60_000 - 1000);
    expect(Date.parse(body.expiry)).toBeLessThanOrEqual(after + 60 * 60_000);
    const claims = jwt.verify(body.access_token, TEST_JWT_SECRET) as jwt.JwtPayload;
    expect(claims).toMatchObject({
      iss: 'tender-exchange',
      aud: 'tender-exchange-api',
      sub: broker.appId,
      role: 'broker',
      broker_company_id: scene.world.brokers[0].id,
    });
    expect(typeof claims.jti).toBe('string');
    expect(claims.exp! * 1000).toBe(Date.parse(body.expiry));
    expect(jwt.decode(body.access_token, { complete: true })!.header.alg).toBe('HS256');
  });

  it('honours a requested expiry within the maximum', async () => {
    const expiry = new Date(Date.now() + 10 * 60_000).toISOString();
    const body = await await json(await postToken({ app_id: broker.appId, secret: broker.secret, expiry }));
    expect(Math.abs(Date.parse(body.expiry) - Date.parse(expiry))).toBeLessThan(1000);
  });

  it.each([
    ['a past expiry', { expiry: '2020-01-01T00:00:00.000Z' }],
    ['an expiry beyond the maximum', { expiry: new Date(Date.now() + 400 * 24 * 3600_000).toISOString() }],
    ['a malformed expiry', { expiry: 'tomorrow' }],
    ['an expiry without an offset', { expiry: '2030-01-01T00:00:00' }],
    ['an expiry on a day that does not exist', { expiry: '2026-11-31T10:00:00.000Z' }],
    ['an expiry at hour 24', { expiry: '2026-12-01T24:00:00Z' }],
    ['a numeric secret', { secret: 12345 }],
    ['an unknown field', { scope: 'all' }],
  ])('answers %s with a 400 problem', async (_label, patch) => {
    const response = await postToken({ app_id: broker.appId, secret: broker.secret, ...patch });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = await json(response);
    expect(body.code).toBe('BAD_USER_INPUT');
    expect(body.errors[0].pointer).toMatch(/^\/(expiry|secret|scope)$/);
  });

  it('answers a wrong secret and an unknown app_id with the same 401', async () => {
    const wrongSecret = await postToken({ app_id: broker.appId, secret: 'not-the-secret' });
    const unknownApp = await postToken({ app_id: 'nobody', secret: 'not-the-secret' });
    expect(wrongSecret.status).toBe(401);
    expect(unknownApp.status).toBe(401);
    expect(await json(wrongSecret)).toEqual(await json(unknownApp));
  });

  it('answers malformed JSON with 400, a non-JSON body with 415, an oversize body with 413', async () => {
    expect((await postToken('{"app_id": ')).status).toBe(400);
    expect((await postToken([1, 2])).status).toBe(400);
    expect((await postToken('app_id=x&secret=y', { 'content-type': 'text/plain' })).status).toBe(415);
    const huge = await postToken({ app_id: broker.appId, secret: 'x'.repeat(20_000) });
    expect(huge.status).toBe(413);
    expect((await json(huge)).code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers GET with 405', async () => {
    const response = await fetch(`${scene.gateway.url}/auth/token`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('stores secrets only as salted scrypt hashes', async () => {
    const client = await scene.gateway.em().findOneOrFail(ApiClient, { appId: broker.appId });
    expect(client.secretHash).toMatch(/^scrypt\$/);
    expect(client.secretHash).not.toContain(broker.secret);
  });
});

describe('bearer token checks', () => {
  const sign = (claims: object, secret = TEST_JWT_SECRET, options: jwt.SignOptions = {}) =>
    jwt.sign({ role: 'broker', broker_company_id: scene.world.brokers[0].id, ...claims }, secret, {
      issuer: 'tender-exchange',
      audience: 'tender-exchange-api',
      subject: broker.appId,
      jwtid: 'test-jti',
      expiresIn: 600,
      ...options,
    });

  const expectRefused = async (token: string, status = 401) => {
    const response = await getJson(scene.gateway, '/api/v1/tenders', token);
    expect(response.status).toBe(status);
    if (status === 401) expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    return response.body;
  };

  it('accepts a well-formed token (the forgeries below differ in one way only)', async () => {
    expect((await getJson(scene.gateway, '/api/v1/tenders', sign({}))).status).toBe(200);
  });

  it('refuses a missing token, another scheme and garbage with 401', async () => {
    const missing = await getJson(scene.gateway, '/api/v1/tenders');
    expect(missing.status).toBe(401);
    expect(missing.body.code).toBe('UNAUTHENTICATED');
    const basic = await fetch(`${scene.gateway.url}/api/v1/tenders`, { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(basic.status).toBe(401);
    await expectRefused('garbage');
  });

  it('counts a forged token against its address, not its subject: a huge or odd subject is a 401, never a 500', async () => {
    const before = await scene.gateway.em().count(RateLimitCounter);
    for (const subject of ['x'.repeat(10_000), 'nul\u0000byte', 'client-of-someone-else']) {
      await expectRefused(sign({}, 'not-the-secret-but-long-enough-for-hs256-000', { subject }));
    }
    const keys = (await scene.gateway.em().find(RateLimitCounter, {})).map((row) => row.key);
    expect(keys.length).toBeLessThanOrEqual(before + 1);
    expect(keys.some((key) => key.includes('someone-else') || key.includes('xxxx'))).toBe(false);
  });

  it('refuses an expired token', async () => {
    const body = await expectRefused(sign({}, TEST_JWT_SECRET, { expiresIn: -10 }));
    expect(body.detail).toMatch(/expired/);
  });

  it('refuses a token once it has expired, though the same token was accepted a moment before', async () => {
    const token = sign({}, TEST_JWT_SECRET, { expiresIn: 120 });
    expect((await getJson(scene.gateway, '/api/v1/tenders', token)).status).toBe(200);
    // The gateway runs in this process: its clock moves past the token's expiry, its timers keep running.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 121_000);
      const body = await expectRefused(token);
      expect(body.detail).toMatch(/expired/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a tampered token', async () => {
    const [header, , signature] = sign({}).split('.');
    const payload = Buffer.from(
      JSON.stringify({
        role: 'internal',
        sub: broker.appId,
        jti: 'x',
        iat: 1,
        exp: 4102444800,
        iss: 'tender-exchange',
        aud: 'tender-exchange-api',
      }),
    ).toString('base64url');
    await expectRefused(`${header}.${payload}.${signature}`);
  });

  it('refuses alg none', async () => {
    const unsigned = jwt.sign({ role: 'internal', sub: broker.appId, jti: 'x', iss: 'tender-exchange', aud: 'tender-exchange-api' }, '', {
      algorithm: 'none',
    });
    await expectRefused(unsigned);
  });

  it('refuses a token signed with another secret, for another audience or issued in the future', async () => {
    await expectRefused(sign({}, 'another-secret-another-secret-another-secret'));
    await expectRefused(sign({}, TEST_JWT_SECRET, { audience: 'someone-else' }));
    await expectRefused(sign({ iat: Math.floor(Date.now() / 1000) + 3600 }));
  });

  it('refuses a token whose role is not allowed on the path with 403', async () => {
    const body = await expectRefused(sign({ role: 'insurer', insurer_id: scene.world.insurers[0].id }), 403);
    expect(body.code).toBe('FORBIDDEN');
  });
});

describe('POST /auth/token-revoke', () => {
  it('revokes the bearer token, answers revoked again on repeat, and the token stops working', async () => {
    const token = await requestToken(scene.gateway, broker);
    expect((await getJson(scene.gateway, '/api/v1/tenders', token)).status).toBe(200);
    const first = await revoke(token);
    expect(first.status).toBe(200);
    expect(await json(first)).toEqual({ status: 'revoked' });
    const again = await revoke(token);
    expect(again.status).toBe(200);
    const after = await getJson(scene.gateway, '/api/v1/tenders', token);
    expect(after.status).toBe(401);
    expect(after.body.detail).toMatch(/revoked/);
  });

  it('leaves other tokens of the same client working', async () => {
    const kept = await requestToken(scene.gateway, broker);
    await revoke(await requestToken(scene.gateway, broker));
    expect((await getJson(scene.gateway, '/api/v1/tenders', kept)).status).toBe(200);
  });

  it('refuses a revocation without a valid token, or with a non-empty body', async () => {
    expect((await fetch(`${scene.gateway.url}/auth/token-revoke`, { method: 'POST' })).status).toBe(401);
    const token = await requestToken(scene.gateway, broker);
    const withBody = await revoke(token, { headers: { 'content-type': 'application/json' }, body: '{"token":"x"}' });
    expect(withBody.status).toBe(400);
    expect((await revoke(token, { headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(200);
  });
});

describe('across restarts and under attack', () => {
  it('a revoked token stays revoked after a restart', async () => {
    const first = await startGateway();
    const { brokers } = await createWorld(first.em());
    const credentials = await createClient(first, Role.BROKER, { brokerCompanyId: brokers[0].id });
    const revoked = await requestToken(first, credentials);
    const kept = await requestToken(first, credentials);
    const revocation = await fetch(`${first.url}/auth/token-revoke`, { method: 'POST', headers: { authorization: `Bearer ${revoked}` } });
    expect(revocation.status).toBe(200);
    await first.stop();

    const second = await startGateway({ dataDir: first.dataDir });
    try {
      expect((await getJson(second, '/api/v1/tenders', revoked)).status).toBe(401);
      expect((await getJson(second, '/api/v1/tenders', kept)).status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('limits failed token requests per client with 429 and Retry-After', async () => {
    await awayFromWindowEdge(900_000);
    const limited = await startGateway({ env: { AUTH_RATE_LIMIT: '3' } });
    try {
      const attempt = () =>
        fetch(`${limited.url}/auth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ app_id: 'x', secret: 'y' }),
        });
      for (let i = 0; i < 3; i++) expect((await attempt()).status).toBe(401);
      const blocked = await attempt();
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await json(blocked)).code).toBe('RATE_LIMITED');
    } finally {
      await limited.close();
    }
  });
});
