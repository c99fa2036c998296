import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { createClient, getJson, graphql, requestToken, tokenFor } from './helpers/gateway';
import { withGateway } from './helpers/scene';

let internal: string;
const statements: string[] = [];

const revoke = (token: string) =>
  fetch(`${scene.gateway.url}/auth/token-revoke`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
const me = (token: string) => graphql(scene.gateway, token, '{ me { appId } }');

// A reconcile a minute apart: whatever is refused below is refused by this process's own update, not a reconcile.
const scene = withGateway({ per: 'file', dispatch: false, env: { TOKEN_STANDING_RECONCILE_MS: '60000' } });

beforeAll(async () => {
  internal = await scene.token(Role.INTERNAL);
  (scene.gateway.orm.em.getConnection() as AbstractSqlConnection).getKnex().on('query', (query: { sql: string }) => {
    statements.push(query.sql);
  });
});

describe('the token standing, held in memory', () => {
  it('checks an authenticated request without a statement for the standing (no revoked_token, no api_client read)', async () => {
    const token = await tokenFor(scene.gateway, Role.INTERNAL);
    expect((await getJson(scene.gateway, '/api/v1/tenders?limit=1', token)).status).toBe(200); // the new client, read once
    statements.length = 0;
    for (let i = 0; i < 5; i++) expect((await getJson(scene.gateway, '/api/v1/tenders?limit=1', token)).status).toBe(200);
    expect(statements.filter((sql) => /revoked_token|api_client/.test(sql))).toEqual([]);
  });

  it('refuses a revoked token at once on the instance that revoked it', async () => {
    const token = await tokenFor(scene.gateway, Role.ANALYST);
    expect((await me(token)).status).toBe(200);
    expect((await revoke(token)).status).toBe(200);
    const refused = await getJson(scene.gateway, '/api/v1/tenders?limit=1', token);
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toBe('The access token has been revoked');
  });

  it("refuses a disabled client's tokens at once, and a rotation that revokes tokens likewise", async () => {
    const disabled = await createClient(scene.gateway, Role.ANALYST);
    const rotated = await createClient(scene.gateway, Role.ANALYST);
    const [disabledToken, rotatedToken] = [await requestToken(scene.gateway, disabled), await requestToken(scene.gateway, rotated)];
    for (const token of [disabledToken, rotatedToken]) expect((await me(token)).status).toBe(200);

    await graphql(scene.gateway, internal, 'mutation($id: String!) { disableApiClient(appId: $id) { appId } }', { id: disabled.appId });
    expect((await me(disabledToken)).body.errors[0].message).toBe('The API client of this access token is disabled');

    await graphql(scene.gateway, internal, 'mutation($id: String!) { rotateApiClientSecret(appId: $id, revokeTokens: true) { appId } }', {
      id: rotated.appId,
    });
    expect((await me(rotatedToken)).body.errors[0].message).toBe(
      "The access token was issued before the client's tokens were revoked; request a new one",
    );
  });

  it('still refuses a revoked token after a restart (the revocations are in the database)', async () => {
    const token = await tokenFor(scene.gateway, Role.ANALYST);
    expect((await revoke(token)).status).toBe(200);
    await scene.reopen({ dispatch: false });
    const refused = await getJson(scene.gateway, '/api/v1/tenders?limit=1', token);
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toBe('The access token has been revoked');
  });
});
