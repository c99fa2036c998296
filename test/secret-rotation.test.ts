import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { createClient, getJson, graphql, requestToken, type Credentials } from './helpers/gateway';
import { withGateway } from './helpers/scene';

let internal: string;
let broker: Credentials;

const scene = withGateway({ per: 'file', dispatch: false, world: true });

beforeAll(async () => {
  const world = scene.world;
  internal = await scene.token(Role.INTERNAL);
  broker = await createClient(scene.gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
});

interface Answer {
  status: number;
  token?: string;
  /** When the answer arrived, ms (performance.now). */
  at: number;
}

async function askForToken(credentials: Credentials): Promise<Answer> {
  const response = await fetch(`${scene.gateway.url}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ app_id: credentials.appId, secret: credentials.secret }),
  });
  const body: any = await response.json();
  return { status: response.status, token: body.access_token, at: performance.now() };
}

describe('secret rotation and token requests in flight', () => {
  it('a token request with the old secret answered after the rotation is a 401, and tokens issued before it keep working', async () => {
    const issuedBefore = await requestToken(scene.gateway, broker);
    // Some requests ahead of the rotation, then the rotation, then many that read the client while the new secret is
    // being hashed and wait behind that derivation for their own.
    const ahead = Array.from({ length: 4 }, () => askForToken(broker));
    const rotation = graphql(scene.gateway, internal, 'mutation($appId: String!) { rotateApiClientSecret(appId: $appId) { secret } }', {
      appId: broker.appId,
    }).then((answer) => ({ ...answer, at: performance.now() }));
    const behind = Array.from({ length: 36 }, () => askForToken(broker));
    const rotated = await rotation;
    expect(rotated.body.errors).toBeUndefined();
    const answers = await Promise.all([...ahead, ...behind]);

    const afterRotation = answers.filter((answer) => answer.at > rotated.at);
    expect(afterRotation.length).toBeGreaterThan(10);
    expect(afterRotation.map((answer) => answer.status)).toEqual(afterRotation.map(() => 401));

    // Rotation without revokeTokens: whatever was issued with the old secret before stays valid until it expires.
    const issued = answers.filter((answer) => answer.status === 200).map((answer) => answer.token!);
    for (const token of [issuedBefore, ...issued]) expect((await getJson(scene.gateway, '/api/v1/tenders', token)).status).toBe(200);
    // The old secret fails from now on, the new one works.
    expect((await askForToken(broker)).status).toBe(401);
    expect((await askForToken({ appId: broker.appId, secret: rotated.body.data.rotateApiClientSecret.secret })).status).toBe(200);
  });
});
