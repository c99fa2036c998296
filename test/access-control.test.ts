import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { type Tender, TenderStatus } from '../src/tenders';
import { createTender } from './helpers/fixtures';
import { getJson, graphql, tokenFor } from './helpers/gateway';
import { withGateway } from './helpers/scene';

const KEPT_FOR_INSURERS = ['_id', 'changes_metadata', 'created_at', 'line_of_business', 'product', 'status', 'updated_at'];
const WITHHELD = ['broker_company', 'customer', 'person_in_charge', 'tax_rate'];

let tenders: Record<string, Tender>;
const tokens: Record<string, string> = {};

const scene = withGateway({ per: 'file', world: true });

beforeAll(async () => {
  const em = scene.gateway.em();
  const [alpha, beta, gamma] = scene.world.insurers;
  tenders = {
    openForAlpha: await createTender(em, scene.world, { invited: [alpha] }),
    openForBeta: await createTender(em, scene.world, { invited: [beta] }),
    closedForBoth: await createTender(em, scene.world, { status: TenderStatus.CLOSED, invited: [alpha, beta] }),
    wonByAlpha: await createTender(em, scene.world, { status: TenderStatus.SUCCESSFUL, invited: [alpha, beta], awardedInsurer: alpha }),
    secondBrokers: await createTender(em, scene.world, { broker: 1, invited: [gamma] }),
  };
  tokens.alpha = await tokenFor(scene.gateway, Role.INSURER, { insurerId: alpha.id });
  tokens.beta = await tokenFor(scene.gateway, Role.INSURER, { insurerId: beta.id });
  tokens.gamma = await tokenFor(scene.gateway, Role.INSURER, { insurerId: gamma.id });
  tokens.broker0 = await scene.token(Role.BROKER);
  tokens.broker1 = await scene.token(Role.BROKER, 1);
  tokens.analyst = await scene.token(Role.ANALYST);
});

const ids = (payload: { _id: string }[]) => payload.map((t) => t._id).sort();

describe('who sees which tenders', () => {
  it('an insurer lists only the tenders it was invited to', async () => {
    const { body } = await getJson(scene.gateway, '/public/v1/tenders', tokens.alpha);
    expect(ids(body.payload)).toEqual([tenders.openForAlpha.id, tenders.closedForBoth.id, tenders.wonByAlpha.id].sort());
    expect(body.metadata.count).toBe('3');
  });

  it('an insurer gets 404, not 403, for a tender it was not invited to', async () => {
    const { status, body } = await getJson(scene.gateway, `/public/v1/tenders/${tenders.openForBeta.id}`, tokens.alpha);
    expect(status).toBe(404);
    expect(body.code).toBe('NOT_FOUND');
  });

  it('an insurer token cannot read any broker path', async () => {
    for (const path of [
      '/api/v1/tenders',
      '/api/v1/tenders/open',
      '/api/v1/tenders/successful',
      '/api/v1/tenders/closed',
      `/api/v1/tenders/${tenders.openForAlpha.id}`,
    ]) {
      const { status, body } = await getJson(scene.gateway, path, tokens.alpha);
      expect(status, path).toBe(403);
      expect(body.code).toBe('FORBIDDEN');
    }
  });

  it("a broker sees only its company's tenders, and others' are 404", async () => {
    const { body } = await getJson(scene.gateway, '/api/v1/tenders', tokens.broker1);
    expect(ids(body.payload)).toEqual([tenders.secondBrokers.id]);
    const foreign = await getJson(scene.gateway, `/api/v1/tenders/${tenders.openForAlpha.id}`, tokens.broker1);
    expect(foreign.status).toBe(404);
  });

  it('a broker reads /public/v1/tenders/open but no other insurer path', async () => {
    const open = await getJson(scene.gateway, '/public/v1/tenders/open', tokens.broker0);
    expect(ids(open.body.payload)).toEqual([tenders.openForAlpha.id, tenders.openForBeta.id].sort());
    for (const path of [
      '/public/v1/tenders',
      '/public/v1/tenders/closed',
      '/public/v1/tenders/successful',
      `/public/v1/tenders/${tenders.openForAlpha.id}`,
    ]) {
      expect((await getJson(scene.gateway, path, tokens.broker0)).status, path).toBe(403);
    }
  });

  it('an analyst token reads through GraphQL but not through REST', async () => {
    expect((await getJson(scene.gateway, '/api/v1/tenders', tokens.analyst)).status).toBe(403);
    expect((await getJson(scene.gateway, '/public/v1/tenders', tokens.analyst)).status).toBe(403);
    const { body } = await graphql(scene.gateway, tokens.analyst, '{ tenders { count } }');
    expect(body.data.tenders.count).toBe(5);
  });

  it('the GraphQL tender query applies the same visibility', async () => {
    const { body } = await graphql(scene.gateway, tokens.gamma, '{ tenders { count items { id } } }');
    expect(body.data.tenders).toEqual({ count: 1, items: [{ id: tenders.secondBrokers.id }] });
    const hidden = await graphql(scene.gateway, tokens.gamma, 'query($id: ID!) { tender(id: $id) { id } }', {
      id: tenders.openForAlpha.id,
    });
    expect(hidden.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

describe('privacy redaction for insurers', () => {
  it('a closed tender is redacted for an invited insurer', async () => {
    const { body } = await getJson(scene.gateway, `/public/v1/tenders/${tenders.closedForBoth.id}`, tokens.alpha);
    for (const field of KEPT_FOR_INSURERS) expect(body[field], field).not.toBeNull();
    for (const field of WITHHELD) expect(body[field], field).toBeNull();
    expect(body.status).toBe('CLOSED');
  });

  it('the same closed tender is complete for its broker', async () => {
    const { body } = await getJson(scene.gateway, `/api/v1/tenders/${tenders.closedForBoth.id}`, tokens.broker0);
    for (const field of WITHHELD) expect(body[field], field).not.toBeNull();
    expect(body.customer.name).toBe('Acme GmbH');
  });

  it('a successful tender is complete for the insurer that won it and redacted for the one that lost', async () => {
    const winner = await getJson(scene.gateway, '/public/v1/tenders/successful', tokens.alpha);
    expect(winner.body.payload[0].customer).not.toBeNull();
    expect(winner.body.payload[0].tax_rate).toBe(0.19);
    const loser = await getJson(scene.gateway, '/public/v1/tenders/successful', tokens.beta);
    expect(loser.body.payload).toHaveLength(1);
    for (const field of WITHHELD) expect(loser.body.payload[0][field], field).toBeNull();
  });

  it('GraphQL marks redacted tenders and nulls the same fields', async () => {
    const { body } = await graphql(
      scene.gateway,
      tokens.beta,
      'query($id: ID!) { tender(id: $id) { redacted taxRate customer { name } brokerCompany { name } personInCharge { email } product } }',
      {
        id: tenders.wonByAlpha.id,
      },
    );
    expect(body.data.tender).toEqual({
      redacted: true,
      taxRate: null,
      customer: null,
      brokerCompany: null,
      personInCharge: null,
      product: 'Cyber Protect',
    });
  });
});
