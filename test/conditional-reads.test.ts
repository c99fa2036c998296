import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { createTender } from './helpers/fixtures';
import { graphql, tokenFor } from './helpers/gateway';
import { withGateway } from './helpers/scene';

let broker: string;
let otherBroker: string;
let insurer: string;
let tenderId: string;

const scene = withGateway({ per: 'file', world: true });

beforeAll(async () => {
  const em = scene.gateway.em();
  tenderId = (await createTender(em, scene.world, { invited: [scene.world.insurers[0]] })).id;
  await createTender(em, scene.world, { broker: 1 });
  broker = await scene.token(Role.BROKER);
  otherBroker = await scene.token(Role.BROKER, 1);
  insurer = await scene.token(Role.INSURER);
});

async function get(path: string, token: string, etag?: string) {
  const response = await fetch(`${scene.gateway.url}${path}`, {
    headers: { authorization: `Bearer ${token}`, ...(etag ? { 'if-none-match': etag } : {}) },
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** The tag of a path now, checked to be honoured with a 304. */
async function tagOf(path: string, token: string): Promise<string> {
  const first = await get(path, token);
  expect(first.status).toBe(200);
  const etag = first.headers.get('etag')!;
  expect(etag).toMatch(/^"[\w-]+"$/);
  expect((await get(path, token, etag)).status).toBe(304);
  return etag;
}

/** A tender of broker 0 created as the user interface creates them, submitted by this person. */
const createTenderFor = (token: string, submitter: { accountId: string; email: string; firstName: string; lastName: string }) =>
  graphql(scene.gateway, token, 'mutation($input: CreateTenderInput!) { createTender(input: $input) { id } }', {
    input: {
      product: 'Cyber Protect',
      lineOfBusinessId: scene.world.lines.cyber.id,
      brokerCompanyId: scene.world.brokers[0].id,
      customer: { companyId: 'C-9', name: 'Beta AG' },
      submitter,
      taxRate: 0.19,
    },
  });

const closeTender = (token: string, id: string) =>
  graphql(scene.gateway, token, 'mutation($id: ID!) { closeTender(tenderId: $id, reason: "no longer needed") { status } }', { id });

describe('conditional reads of the REST tender APIs (ETag, If-None-Match)', () => {
  it('answers a list and a tender with an ETag, private and revalidated, and the same request with that tag is a 304 without a body', async () => {
    for (const path of ['/api/v1/tenders', `/api/v1/tenders/${tenderId}`, '/public/v1/tenders/open?limit=5']) {
      const token = path.startsWith('/public') ? insurer : broker;
      const first = await get(path, token);
      expect(first.status).toBe(200);
      expect(first.headers.get('cache-control')).toBe('private, no-cache');
      expect(first.headers.get('vary')).toMatch(/Authorization/i);
      const again = await get(path, token, first.headers.get('etag')!);
      expect(again.status, path).toBe(304);
      expect(again.text).toBe('');
      expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
      // A list of tags (RFC 9110), weak or not, that names it is a match too; another tag is not.
      expect((await get(path, token, `"other", W/${first.headers.get('etag')}`)).status).toBe(304);
      expect((await get(path, token, '"other"')).status).toBe(200);
    }
  });

  it('If-None-Match: * is a 304 for a list and for a tender the viewer may see (RFC 9110 13.1.2), and a tender it may not see stays a 404', async () => {
    for (const path of ['/api/v1/tenders', '/api/v1/tenders/closed?limit=3', `/api/v1/tenders/${tenderId}`]) {
      const answer = await get(path, broker, '*');
      expect(answer.status, path).toBe(304);
      expect(answer.text).toBe('');
      expect(answer.headers.get('etag')).toBe((await get(path, broker)).headers.get('etag'));
    }
    expect((await get(`/api/v1/tenders/${tenderId}`, otherBroker, '*')).status).toBe(404);
    expect((await get('/api/v1/tenders/no-such-tender', broker, '*')).status).toBe(404);
  });

  it("a change the client can see gives a new tag and the new body; another broker's change leaves its tag alone", async () => {
    const own = await createTender(scene.gateway.em(), scene.world, {});
    const list = '/api/v1/tenders';
    const before = await tagOf(list, broker);
    const otherBefore = await tagOf(list, otherBroker);

    const [others] = (await get(`${list}?limit=1`, otherBroker).then((answer) => JSON.parse(answer.text))).payload;
    expect((await closeTender(otherBroker, others._id)).body.errors).toBeUndefined();
    expect((await get(list, broker, before)).status).toBe(304);
    const otherAfter = await get(list, otherBroker, otherBefore);
    expect(otherAfter.status).toBe(200);

    expect((await closeTender(broker, own.id)).body.errors).toBeUndefined();
    const after = await get(list, broker, before);
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(before);
    expect(JSON.parse(after.text).payload.find((tender: { _id: string }) => tender._id === own.id).status).toBe('CLOSED');
  });

  it('an invitation changes the invited insurer’s tags, and a tender created for the broker changes the broker’s', async () => {
    const fresh = await createTender(scene.gateway.em(), scene.world, {});
    const internal = await tokenFor(scene.gateway, Role.INTERNAL);
    const insurerList = await tagOf('/public/v1/tenders', insurer);
    const brokerList = await tagOf('/api/v1/tenders', broker);

    const invited = await graphql(scene.gateway, broker, 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }', {
      input: {
        tenderId: fresh.id,
        insurerIds: [scene.world.insurers[0].id],
        limits: [{ insuranceSum: 1_000_000, deductible: 1_000 }],
        riskInformation: { typeOfBusiness: 'Software' },
      },
    });
    expect(invited.body.errors).toBeUndefined();
    const insurerAfter = await get('/public/v1/tenders', insurer, insurerList);
    expect(insurerAfter.status).toBe(200);
    expect(JSON.parse(insurerAfter.text).payload.map((tender: { _id: string }) => tender._id)).toContain(fresh.id);

    const created = await createTenderFor(internal, {
      accountId: 'NEW-1',
      email: 'new@broker.example',
      firstName: 'Nina',
      lastName: 'Neu',
    });
    expect(created.body.errors).toBeUndefined();
    expect((await get('/api/v1/tenders', broker, brokerList)).status).toBe(200);
  });

  it("new details of a person change every tag that shows the person's tenders, an insurer's too", async () => {
    const internal = await tokenFor(scene.gateway, Role.INTERNAL);
    const item = `/public/v1/tenders/${tenderId}`;
    const before = await tagOf(item, insurer);
    const person = scene.world.people[0];
    const created = await createTenderFor(internal, {
      accountId: person.accountId,
      email: person.email,
      firstName: 'Erika',
      lastName: 'Renamed',
    });
    expect(created.body.errors).toBeUndefined();
    const after = await get(item, insurer, before);
    expect(after.status).toBe(200);
    expect(JSON.parse(after.text).person_in_charge.last_name).toBe('Renamed');
  });

  it("one client's tag is not another's: the same path for another broker answers in full", async () => {
    const mine = await tagOf('/api/v1/tenders', broker);
    const theirs = await get('/api/v1/tenders', otherBroker, mine);
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('etag')).not.toBe(mine);
  });

  it('counts, kept per revision of what a client sees, follow every change it can see: a close, an invitation', async () => {
    const count = async (path: string, token: string) => Number(JSON.parse((await get(`${path}?limit=1`, token)).text).metadata.count);
    const tender = await createTender(scene.gateway.em(), scene.world, {});
    const [open, closed, invited] = [
      await count('/api/v1/tenders/open', broker),
      await count('/api/v1/tenders/closed', broker),
      await count('/public/v1/tenders', insurer),
    ];
    // Asked again, unchanged: the same counts (now from the kept ones).
    expect([await count('/api/v1/tenders/open', broker), await count('/api/v1/tenders/closed', broker)]).toEqual([open, closed]);

    expect((await closeTender(broker, tender.id)).body.errors).toBeUndefined();
    expect([await count('/api/v1/tenders/open', broker), await count('/api/v1/tenders/closed', broker)]).toEqual([open - 1, closed + 1]);

    const reopened = await graphql(scene.gateway, broker, 'mutation($id: ID!) { reopenTender(tenderId: $id) { status } }', {
      id: tender.id,
    });
    expect(reopened.body.errors).toBeUndefined();
    const asked = await graphql(scene.gateway, broker, 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }', {
      input: {
        tenderId: tender.id,
        insurerIds: [scene.world.insurers[0].id],
        limits: [{ insuranceSum: 500_000, deductible: 500 }],
        riskInformation: { typeOfBusiness: 'Retail' },
      },
    });
    expect(asked.body.errors).toBeUndefined();
    expect(await count('/public/v1/tenders', insurer)).toBe(invited + 1);
    // GraphQL's count is the same one.
    expect((await graphql(scene.gateway, insurer, '{ tenders(limit: 1) { count } }')).body.data.tenders.count).toBe(invited + 1);
  });

  it('a tender the client may not see is a 404 without a tag, and stays a 404 with any tag', async () => {
    const [others] = JSON.parse((await get('/api/v1/tenders?limit=1', otherBroker)).text).payload;
    const refused = await get(`/api/v1/tenders/${others._id}`, broker);
    expect(refused.status).toBe(404);
    expect(refused.headers.get('etag')).toBeNull();
    const ownTag = await tagOf(`/api/v1/tenders/${tenderId}`, broker);
    expect((await get(`/api/v1/tenders/${others._id}`, broker, ownTag)).status).toBe(404);
  });

  it('a bad parameter or token is still refused, whatever tag comes with it', async () => {
    const etag = await tagOf('/api/v1/tenders', broker);
    expect((await get('/api/v1/tenders?limit=0', broker, etag)).status).toBe(400);
    expect((await get('/api/v1/tenders', 'not-a-token', etag)).status).toBe(401);
    expect((await get(`/api/v1/tenders/${tenderId}?x=1`, broker, etag)).status).toBe(400);
  });
});
