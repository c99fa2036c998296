import { request } from 'node:http';
import * as oauth from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { openApiDocument } from '../src/api/rest/openapi/openapi-document';
import { createWorld } from './helpers/fixtures';
import { createClient, getJson, json, requestToken, startGateway, type Credentials } from './helpers/gateway';
import { awayFromWindowEdge } from './helpers/rate-limit-window';
import { withGateway } from './helpers/scene';

/**
 * The OAuth 2.0 forms of the token service (docs/oauth.md), driven by openid-client, a certified OAuth client
 * library nobody here wrote: it discovers the server by RFC 8414 metadata, asks for client credentials tokens
 * (RFC 6749 4.4) with Basic and body authentication, and revokes them (RFC 7009).
 */
let broker: Credentials;

/** openid-client configured by the gateway's metadata; plain http is allowed only because this is loopback. */
const discover = (credentials: Credentials, authentication: 'basic' | 'post' = 'basic') =>
  oauth.discovery(
    new URL(scene.gateway.url),
    credentials.appId,
    undefined,
    authentication === 'basic' ? oauth.ClientSecretBasic(credentials.secret) : oauth.ClientSecretPost(credentials.secret),
    { execute: [oauth.allowInsecureRequests], algorithm: 'oauth2' },
  );

const postForm = (path: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${scene.gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });

const basic = (credentials: Credentials) =>
  `Basic ${Buffer.from(`${encodeURIComponent(credentials.appId)}:${encodeURIComponent(credentials.secret)}`).toString('base64')}`;

/** What openid-client reports of an RFC 6749 5.2 error answer. */
async function refusal(attempt: Promise<unknown>): Promise<{ status: number; error: string }> {
  const error = await attempt.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (error instanceof oauth.ResponseBodyError) return { status: error.status, error: error.error };
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    const body = (await error.response.json()) as { error: string };
    return { status: error.status, error: body.error };
  }
  throw new Error(`expected an OAuth error answer, got ${String(error)}`);
}

const scene = withGateway({ per: 'file', world: true });

beforeAll(async () => {
  broker = await createClient(scene.gateway, Role.BROKER, { brokerCompanyId: scene.world.brokers[0].id });
});

describe('OAuth 2.0 client credentials with openid-client', () => {
  it('discovers the token and revocation endpoints from the RFC 8414 metadata', async () => {
    const metadata = (await discover(broker)).serverMetadata();
    expect(metadata).toMatchObject({
      issuer: scene.gateway.url,
      token_endpoint: `${scene.gateway.url}/auth/oauth/token`,
      revocation_endpoint: `${scene.gateway.url}/auth/revoke`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      scopes_supported: ['insurer', 'broker', 'internal', 'analyst'],
    });
  });

  it('gets a bearer token with HTTP Basic credentials, and the token reads the broker API', async () => {
    const tokens = await oauth.clientCredentialsGrant(await discover(broker, 'basic'));
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.scope).toBe('broker');
    expect(tokens.expires_in).toBeGreaterThan(3590);
    expect(tokens.expires_in).toBeLessThanOrEqual(3600);
    expect((await getJson(scene.gateway, '/api/v1/tenders', tokens.access_token)).status).toBe(200);
  });

  it('gets a token with the credentials in the body and the scope of its role', async () => {
    const tokens = await oauth.clientCredentialsGrant(await discover(broker, 'post'), { scope: 'broker' });
    expect(tokens.scope).toBe('broker');
    expect((await getJson(scene.gateway, '/api/v1/tenders', tokens.access_token)).status).toBe(200);
  });

  it("refuses a scope beyond the client's role with invalid_scope", async () => {
    expect(await refusal(oauth.clientCredentialsGrant(await discover(broker), { scope: 'broker internal' }))).toEqual({
      status: 400,
      error: 'invalid_scope',
    });
  });

  it('refuses a wrong secret or an unknown client with invalid_client and a 401', async () => {
    for (const credentials of [
      { ...broker, secret: 'wrong' },
      { appId: 'nobody', secret: 'wrong' },
    ]) {
      for (const method of ['basic', 'post'] as const) {
        expect(await refusal(oauth.clientCredentialsGrant(await discover(credentials, method)))).toEqual({
          status: 401,
          error: 'invalid_client',
        });
      }
    }
  });

  it('revokes a token of the client by RFC 7009: the token stops working, another one of the client does not', async () => {
    const config = await discover(broker);
    const revoked = (await oauth.clientCredentialsGrant(config)).access_token;
    const kept = (await oauth.clientCredentialsGrant(config)).access_token;
    await oauth.tokenRevocation(config, revoked);
    expect((await getJson(scene.gateway, '/api/v1/tenders', revoked)).status).toBe(401);
    expect((await getJson(scene.gateway, '/api/v1/tenders', kept)).status).toBe(200);
    // Again, and for a token that is no token: nothing to revoke, and RFC 7009 2.2 answers 200 all the same.
    await oauth.tokenRevocation(config, revoked);
    await oauth.tokenRevocation(config, 'not-a-token');
  });

  it("refuses to revoke another client's token (unauthorized_client), which keeps working", async () => {
    const other = await createClient(scene.gateway, Role.BROKER, { brokerCompanyId: scene.world.brokers[1].id });
    const othersToken = await requestToken(scene.gateway, other);
    expect(await refusal(oauth.tokenRevocation(await discover(broker), othersToken))).toEqual({
      status: 400,
      error: 'unauthorized_client',
    });
    expect((await getJson(scene.gateway, '/api/v1/tenders', othersToken)).status).toBe(200);
  });

  it('refuses a revocation by a client with a wrong secret (invalid_client), and the token keeps working', async () => {
    const token = await requestToken(scene.gateway, broker);
    expect(await refusal(oauth.tokenRevocation(await discover({ ...broker, secret: 'wrong' }), token))).toEqual({
      status: 401,
      error: 'invalid_client',
    });
    expect((await getJson(scene.gateway, '/api/v1/tenders', token)).status).toBe(200);
  });
});

type Operation = { security?: unknown[]; requestBody?: { content: Record<string, unknown> } };
const operationOf = (path: string) => (openApiDocument.paths as unknown as Record<string, { post: Operation }>)[path].post;

/**
 * A call as a client generated from the OpenAPI document makes it (orval, openapi-fetch): the request's content type is
 * the one the operation declares, the body serialised for it; with more than one declared, such a client sends none.
 */
function generatedCall(path: string, body: Record<string, string>): Promise<Response> {
  const types = Object.keys(operationOf(path).requestBody?.content ?? {});
  if (types.length !== 1)
    throw new Error(`${path} declares ${types.length} request types (${types.join(', ')}): a generated client sends none`);
  const [type] = types;
  return fetch(`${scene.gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': type },
    body: type === 'application/json' ? JSON.stringify(body) : new URLSearchParams(body),
  });
}

/** A POST outside the suite's fetch, whose every exchange must be documented: for what is kept but no longer described. */
function undocumentedPost(path: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(`${scene.gateway.url}${path}`, { method: 'POST', headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

describe('the token service as the OpenAPI document describes it (generated clients)', () => {
  it("describes the spec's POST /auth/token with one request type, JSON, and no security requirement", () => {
    const token = operationOf('/auth/token');
    expect(Object.keys(token.requestBody!.content)).toEqual(['application/json']);
    expect(token.security).toEqual([]);
    expect(Object.keys(operationOf('/auth/oauth/token').requestBody!.content)).toEqual(['application/x-www-form-urlencoded']);
    expect(operationOf('/auth/oauth/token').security).toEqual([]);
    expect(operationOf('/auth/revoke').security).toEqual([]);
  });

  it('gives a generated client a token at POST /auth/token: it sends the JSON the document declares', async () => {
    const response = await generatedCall('/auth/token', { app_id: broker.appId, secret: broker.secret });
    expect(response.status).toBe(200);
    const { access_token: token } = await json(response);
    expect((await getJson(scene.gateway, '/api/v1/tenders', token)).status).toBe(200);
  });

  it('gives a generated client a token at the OAuth form operation, POST /auth/oauth/token', async () => {
    const response = await generatedCall('/auth/oauth/token', {
      grant_type: 'client_credentials',
      client_id: broker.appId,
      client_secret: broker.secret,
    });
    expect(response.status).toBe(200);
    expect(await json(response)).toMatchObject({ token_type: 'Bearer', scope: 'broker' });
  });

  it('offers Swagger UI examples for the token forms instead of "string"', () => {
    const schemas = openApiDocument.components.schemas as unknown as Record<
      string,
      { properties: Record<string, { examples?: unknown[] }> }
    >;
    const token = operationOf('/auth/token').requestBody!.content['application/json'] as { example?: object };
    expect(token.example).toEqual({ app_id: 'demo-broker', secret: 'demo-broker-secret' });
    for (const [schema, fields] of [
      ['TokenRequest', ['app_id', 'secret', 'expiry']],
      ['OAuthTokenRequest', ['grant_type', 'client_id', 'client_secret', 'scope']],
      ['OAuthRevocationRequest', ['token', 'client_id', 'client_secret']],
    ] as const) {
      for (const field of fields) expect(schemas[schema].properties[field].examples, `${schema}.${field}`).toHaveLength(1);
    }
  });

  it('still takes the OAuth form at POST /auth/token, where clients configured before the OAuth path send it', async () => {
    const answer = await undocumentedPost(
      '/auth/token',
      { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(broker) },
      'grant_type=client_credentials',
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ token_type: 'Bearer', scope: 'broker' });
  });
});

describe('the OAuth form on the wire', () => {
  it('answers invalid_client with 401, WWW-Authenticate: Basic and no-store', async () => {
    const response = await postForm(
      '/auth/oauth/token',
      { grant_type: 'client_credentials' },
      { authorization: basic({ ...broker, secret: 'wrong' }) },
    );
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm="tender-exchange"/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await json(response)).toEqual({ error: 'invalid_client', error_description: 'Unknown app_id or wrong secret' });
  });

  it.each([
    ['no grant_type', 'invalid_request', { client_id: 'a', client_secret: 'b' }, false],
    ['another grant type', 'unsupported_grant_type', { grant_type: 'password', username: 'a', password: 'b' }, false],
    ['credentials by Basic and in the body', 'invalid_request', { grant_type: 'client_credentials', client_secret: 'b' }, true],
    ['a NUL character', 'invalid_request', { grant_type: 'client_credentials', client_id: 'a\0', client_secret: 'b' }, false],
    ['a malformed scope', 'invalid_scope', { grant_type: 'client_credentials', client_id: 'a', client_secret: 'b', scope: 'a  b' }, false],
  ])('answers %s with a 400 %s error', async (_label, error, form: Record<string, string>, withBasic) => {
    const response = await postForm('/auth/oauth/token', form, withBasic ? { authorization: basic(broker) } : {});
    expect(response.status).toBe(400);
    expect((await json(response)).error).toBe(error);
  });

  it('answers a repeated parameter with invalid_request', async () => {
    const response = await fetch(`${scene.gateway.url}/auth/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&grant_type=client_credentials&client_id=a&client_secret=b',
    });
    expect(response.status).toBe(400);
    expect((await json(response)).error).toBe('invalid_request');
  });

  it('decodes form-encoded Basic credentials (RFC 6749 2.3.1) and ignores unknown parameters', async () => {
    const response = await postForm(
      '/auth/oauth/token',
      { grant_type: 'client_credentials', audience: 'x' },
      { authorization: basic(broker) },
    );
    expect(response.status).toBe(200);
    expect(await json(response)).toMatchObject({ token_type: 'Bearer', scope: 'broker' });
  });

  it("keeps the spec's JSON token request, answered with token_type and expires_in beside access_token and expiry", async () => {
    const response = await fetch(`${scene.gateway.url}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ app_id: broker.appId, secret: broker.secret }),
    });
    const body = await json(response);
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'expiry', 'scope', 'token_type']);
    expect(body.token_type).toBe('Bearer');
    expect(Math.abs(Date.now() + body.expires_in * 1000 - Date.parse(body.expiry))).toBeLessThan(2000);
  });

  it('answers an RFC 7009 revocation with a JSON body a strict client parses, for a real token and for none', async () => {
    const token = await requestToken(scene.gateway, broker);
    for (const named of [token, 'not-a-token']) {
      const response = await postForm('/auth/revoke', { token: named }, { authorization: basic(broker) });
      expect(response.status).toBe(200);
      // What a strict client (simple-oauth2's revoke(), through @hapi/wreck with json: 'strict') requires.
      expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
      expect(JSON.parse(await response.text())).toEqual({ status: 'revoked' });
    }
    expect((await getJson(scene.gateway, '/api/v1/tenders', token)).status).toBe(401);
  });

  it('refuses JSON at the OAuth token endpoint with 415', async () => {
    const response = await fetch(`${scene.gateway.url}/auth/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials' }),
    });
    expect(response.status).toBe(415);
  });

  it('refuses a revocation that is not a form with 415', async () => {
    const response = await fetch(`${scene.gateway.url}/auth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basic(broker) },
      body: JSON.stringify({ token: 'x' }),
    });
    expect(response.status).toBe(415);
  });
});

describe('failed OAuth attempts', () => {
  it('count like failed JSON token requests: 429 with Retry-After after AUTH_RATE_LIMIT failures', async () => {
    await awayFromWindowEdge(900_000);
    const limited = await startGateway({ env: { AUTH_RATE_LIMIT: '3' } });
    try {
      const client = await createClient(limited, Role.BROKER, { brokerCompanyId: (await createWorld(limited.em())).brokers[0].id });
      const wrong = { ...client, secret: 'wrong' };
      const attempt = (form: Record<string, string>, headers: Record<string, string> = {}) =>
        fetch(`${limited.url}/auth/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body: new URLSearchParams(form),
        });
      expect((await attempt({ grant_type: 'client_credentials' }, { authorization: basic(wrong) })).status).toBe(401);
      expect((await attempt({ grant_type: 'client_credentials', client_id: wrong.appId, client_secret: wrong.secret })).status).toBe(401);
      const json3 = await fetch(`${limited.url}/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ app_id: wrong.appId, secret: wrong.secret }),
      });
      expect(json3.status).toBe(401);
      const blocked = await attempt({ grant_type: 'client_credentials' }, { authorization: basic(client) });
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      const revocation = await fetch(`${limited.url}/auth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client) },
        body: new URLSearchParams({ token: 'x' }),
      });
      expect(revocation.status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});
