import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { TenderMessage } from '../src/messages';
import type { Tender } from '../src/tenders';
import { addDocument } from './helpers/documents';
import { createTender, receivedQuote } from './helpers/fixtures';
import { getJson, graphql } from './helpers/gateway';
import { withGateway } from './helpers/scene';
import { waitFor } from './helpers/simulator';
import { startWebhookReceiver } from './helpers/webhook-receiver';

/** Issue 40, part 1: clarification threads between a tender's broker and each invited insurer. */
const scene = withGateway({ per: 'file', world: true, webhooks: 'fast', env: { ACCESS_LOG_FLUSH_MS: '20' } });

const POST = `mutation($input: PostTenderMessageInput!) {
  postTenderMessage(input: $input) { id tenderId insurerId authorRole author text documentIds requestsInformation createdAt } }`;
const THREAD = `query($tenderId: ID!, $insurerId: ID) {
  tenderMessages(tenderId: $tenderId, insurerId: $insurerId) { id tenderId insurerId authorRole author text documentIds requestsInformation createdAt } }`;
const OPEN = `query($tenderId: ID!) { quoteRequests(tenderId: $tenderId) { insurer { id } openQuestions } }`;

const tokens = {} as Record<'broker' | 'otherBroker' | 'alpha' | 'beta' | 'gamma' | 'internal' | 'analyst', string>;

beforeAll(async () => {
  const [alpha, beta, gamma] = scene.world.insurers;
  tokens.broker = await scene.token(Role.BROKER);
  tokens.otherBroker = await scene.token(Role.BROKER, 1);
  tokens.alpha = await scene.token(Role.INSURER, { insurerId: alpha.id });
  tokens.beta = await scene.token(Role.INSURER, { insurerId: beta.id });
  tokens.gamma = await scene.token(Role.INSURER, { insurerId: gamma.id });
  tokens.internal = await scene.token(Role.INTERNAL);
  tokens.analyst = await scene.token(Role.ANALYST);
});

/** A tender of broker 0 that Alpha quoted on (so it has a quote request) and Beta is invited to; Gamma is not. */
async function tenderWithThreads(): Promise<Tender> {
  const em = scene.em();
  const tender = await createTender(em, scene.world, { invited: [scene.world.insurers[1]] });
  await receivedQuote(em, tender, scene.world.insurers[0]);
  return tender;
}

const post = (token: string, input: Record<string, unknown>) => graphql(scene.gateway, token, POST, { input });
const thread = (token: string, tenderId: string, insurerId?: string) => graphql(scene.gateway, token, THREAD, { tenderId, insurerId });
const codeOf = (body: { errors?: { extensions: { code: string } }[] }) => body.errors?.[0]?.extensions.code;

async function openQuestions(token: string, tenderId: string, insurerId: string): Promise<number> {
  const { body } = await graphql(scene.gateway, token, OPEN, { tenderId });
  expect(body.errors).toBeUndefined();
  return body.data.quoteRequests.find((request: { insurer: { id: string } }) => request.insurer.id === insurerId).openQuestions;
}

/** The REST form of a GraphQL message. */
const restOf = (message: Record<string, unknown>) => ({
  _id: message.id,
  tender_id: message.tenderId,
  insurer_id: message.insurerId,
  author_role: message.authorRole,
  text: message.text,
  document_ids: message.documentIds,
  requests_information: message.requestsInformation,
  created_at: message.createdAt,
});

describe('a clarification thread', () => {
  it('carries questions and answers between the broker and an insurer, oldest first, and REST answers as GraphQL', async () => {
    const tender = await tenderWithThreads();
    const alpha = scene.world.insurers[0].id;
    const question = await post(tokens.alpha, {
      tenderId: tender.id,
      insurerId: alpha,
      text: 'Are the backups kept offline?\nAnd how often?',
      requestsInformation: true,
    });
    expect(question.body.errors).toBeUndefined();
    expect(question.body.data.postTenderMessage).toMatchObject({ authorRole: 'INSURER', author: null, requestsInformation: true });
    const backups = await addDocument(scene.gateway, tokens.broker, { tenderId: tender.id, kind: 'RISK' });
    const answer = await post(tokens.broker, {
      tenderId: tender.id,
      insurerId: alpha,
      text: 'Weekly, offline: see the concept.',
      documentIds: [backups],
    });
    expect(answer.body.errors).toBeUndefined();

    const read = await thread(tokens.alpha, tender.id, alpha);
    expect(read.body.errors).toBeUndefined();
    const messages = read.body.data.tenderMessages;
    expect(messages.map((m: { text: string }) => m.text)).toEqual([
      'Are the backups kept offline?\nAnd how often?',
      'Weekly, offline: see the concept.',
    ]);
    expect(messages[1]).toMatchObject({ authorRole: 'BROKER', author: null, documentIds: [backups], requestsInformation: false });
    // The broker sees who wrote; the insurer does not.
    const brokerRead = (await thread(tokens.broker, tender.id)).body.data.tenderMessages;
    expect(brokerRead[1].author).toEqual(expect.any(String));
    expect((await thread(tokens.internal, tender.id, alpha)).body.data.tenderMessages).toHaveLength(2);

    const insurerRest = await getJson(scene.gateway, `/public/v1/tenders/${tender.id}/messages`, tokens.alpha);
    expect(insurerRest.status).toBe(200);
    expect(insurerRest.body).toEqual({ metadata: { count: '2' }, payload: messages.map(restOf) });
    const brokerRest = await getJson(scene.gateway, `/api/v1/tenders/${tender.id}/messages?insurer_id=${alpha}`, tokens.broker);
    expect(brokerRest.body).toEqual({ metadata: { count: '2' }, payload: brokerRead.map(restOf) });
    const otherThread = await getJson(
      scene.gateway,
      `/api/v1/tenders/${tender.id}/messages?insurer_id=${scene.world.insurers[1].id}`,
      tokens.broker,
    );
    expect(otherThread.body).toEqual({ metadata: { count: '0' }, payload: [] });
  });

  it("counts the insurer's open questions on its quote request until the broker's side answers", async () => {
    const tender = await tenderWithThreads();
    const alpha = scene.world.insurers[0].id;
    expect(await openQuestions(tokens.broker, tender.id, alpha)).toBe(0);
    for (const text of ['Revenue of the last year?', 'Number of employees?']) {
      expect(
        (await post(tokens.alpha, { tenderId: tender.id, insurerId: alpha, text, requestsInformation: true })).body.errors,
      ).toBeUndefined();
    }
    await post(tokens.alpha, { tenderId: tender.id, insurerId: alpha, text: 'Thanks in advance.' });
    expect(await openQuestions(tokens.broker, tender.id, alpha)).toBe(2);
    expect(await openQuestions(tokens.alpha, tender.id, alpha)).toBe(2);
    expect(await openQuestions(tokens.analyst, tender.id, alpha)).toBe(0);
    await post(tokens.internal, { tenderId: tender.id, insurerId: alpha, text: '2.4 million, 38 employees.' });
    expect(await openQuestions(tokens.broker, tender.id, alpha)).toBe(0);
    await post(tokens.alpha, { tenderId: tender.id, insurerId: alpha, text: 'Any claims?', requestsInformation: true });
    expect(await openQuestions(tokens.broker, tender.id, alpha)).toBe(1);
  });

  it('is seen by nobody else: another insurer, an uninvited one, another broker and analysts find nothing', async () => {
    const tender = await tenderWithThreads();
    const alpha = scene.world.insurers[0].id;
    await post(tokens.alpha, { tenderId: tender.id, insurerId: alpha, text: 'A question for the broker only.' });

    expect(codeOf((await thread(tokens.beta, tender.id, alpha)).body)).toBe('FORBIDDEN');
    expect((await thread(tokens.beta, tender.id)).body.data.tenderMessages).toEqual([]);
    expect((await getJson(scene.gateway, `/public/v1/tenders/${tender.id}/messages`, tokens.beta)).body.payload).toEqual([]);
    expect(codeOf((await post(tokens.beta, { tenderId: tender.id, insurerId: alpha, text: 'Me too' })).body)).toBe('FORBIDDEN');
    expect(codeOf((await thread(tokens.gamma, tender.id)).body)).toBe('NOT_FOUND');
    expect((await getJson(scene.gateway, `/public/v1/tenders/${tender.id}/messages`, tokens.gamma)).status).toBe(404);
    expect(codeOf((await thread(tokens.otherBroker, tender.id)).body)).toBe('NOT_FOUND');
    expect((await getJson(scene.gateway, `/api/v1/tenders/${tender.id}/messages`, tokens.otherBroker)).status).toBe(404);
    expect(codeOf((await thread(tokens.analyst, tender.id)).body)).toBe('FORBIDDEN');
    // The broker cannot open a thread with an insurer the tender did not invite.
    expect(codeOf((await post(tokens.broker, { tenderId: tender.id, insurerId: scene.world.insurers[2].id, text: 'Hello' })).body)).toBe(
      'NOT_FOUND',
    );
  });

  it('is closed to the insurer once the tender is CLOSED; the broker still reads it', async () => {
    const tender = await tenderWithThreads();
    const alpha = scene.world.insurers[0].id;
    await post(tokens.alpha, { tenderId: tender.id, insurerId: alpha, text: 'Before the close.', requestsInformation: true });
    const closed = await graphql(
      scene.gateway,
      tokens.broker,
      'mutation($id: ID!) { closeTender(tenderId: $id, reason: "placed elsewhere") { status } }',
      {
        id: tender.id,
      },
    );
    expect(closed.body.errors).toBeUndefined();

    expect(codeOf((await thread(tokens.alpha, tender.id)).body)).toBe('NOT_FOUND');
    expect((await getJson(scene.gateway, `/public/v1/tenders/${tender.id}/messages`, tokens.alpha)).status).toBe(404);
    expect(codeOf((await post(tokens.alpha, { tenderId: tender.id, insurerId: alpha, text: 'After the close.' })).body)).toBe('NOT_FOUND');
    expect(codeOf((await post(tokens.broker, { tenderId: tender.id, insurerId: alpha, text: 'After the close.' })).body)).toBe('CONFLICT');
    expect(await openQuestions(tokens.broker, tender.id, alpha)).toBe(1);
    expect((await thread(tokens.broker, tender.id)).body.data.tenderMessages).toHaveLength(1);
  });

  it('records reads of the messages in the access log', async () => {
    const tender = await tenderWithThreads();
    const alpha = scene.world.insurers[0].id;
    await post(tokens.alpha, { tenderId: tender.id, insurerId: alpha, text: 'Is the customer still Acme?' });
    expect((await getJson(scene.gateway, `/api/v1/tenders/${tender.id}/messages`, tokens.broker)).status).toBe(200);
    const operations = await waitFor('the read in the access log', async () => {
      const { body } = await graphql(
        scene.gateway,
        tokens.internal,
        'query($id: ID!) { tenderAccessLog(tenderId: $id) { items { surface operation } } }',
        {
          id: tender.id,
        },
      );
      const items = body.data?.tenderAccessLog.items ?? [];
      return items.length > 0 && items;
    });
    expect(operations).toEqual([{ surface: 'REST', operation: 'GET /api/v1/tenders/:id/messages' }]);
  });
});

describe('the message.posted webhook', () => {
  it("tells the tender's broker company and the thread's insurer, by ids only, and no other insurer", async () => {
    const tender = await tenderWithThreads();
    const alpha = scene.world.insurers[0].id;
    const receiver = scene.closes(await startWebhookReceiver());
    const subscribe = async (token: string, path: string) => {
      const response = await fetch(`${scene.gateway.url}/integration/v1/webhook-endpoints`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url(path), event_types: ['message.posted'] }),
      });
      expect(response.status).toBe(201);
    };
    await subscribe(tokens.broker, '/broker');
    await subscribe(tokens.alpha, '/alpha');
    await subscribe(tokens.beta, '/beta');
    const posted = await post(tokens.broker, { tenderId: tender.id, insurerId: alpha, text: 'Personal: Erika Mustermann, CFO' });
    const data = { tender_id: tender.id, status: 'QUOTES_AVAILABLE', insurer_id: alpha, message_id: posted.body.data.postTenderMessage.id };
    for (const path of ['/broker', '/alpha']) {
      const [event] = await waitFor(`the event at ${path}`, async () => receiver.received(path).length > 0 && receiver.received(path));
      expect(event.event).toMatchObject({ type: 'message.posted', data });
      expect(event.event.data).toEqual(data);
      expect(event.body).not.toContain('Mustermann');
    }
    expect(receiver.received('/beta')).toEqual([]);
  });
});

describe('hostile input', () => {
  it('is refused with a precise 4xx and stores nothing', async () => {
    const tender = await tenderWithThreads();
    const other = await tenderWithThreads();
    const alpha = scene.world.insurers[0].id;
    const foreign = await addDocument(scene.gateway, tokens.broker, { tenderId: other.id, kind: 'RISK' });
    const base = { tenderId: tender.id, insurerId: alpha };
    const refusals: [Record<string, unknown>, string, string][] = [
      [{ text: 'x'.repeat(4001) }, 'BAD_USER_INPUT', 'text'],
      [{ text: '' }, 'BAD_USER_INPUT', 'text'],
      [{ text: 'bell \u0007 rings' }, 'BAD_USER_INPUT', 'text'],
      [{ text: 'hidden \u200b space' }, 'BAD_USER_INPUT', 'text'],
      [{ text: 'see', documentIds: ['no-such-document'] }, 'BAD_USER_INPUT', 'documentIds[0]'],
      [{ text: 'see', documentIds: [foreign] }, 'BAD_USER_INPUT', 'documentIds[0]'],
      [{ text: 'see', documentIds: Array.from({ length: 11 }, (_, i) => `doc-${i}`) }, 'BAD_USER_INPUT', 'documentIds'],
    ];
    for (const [input, code, parameter] of refusals) {
      const { status, body } = await post(tokens.broker, { ...base, ...input });
      expect({ status, code: codeOf(body) }, JSON.stringify(body.errors)).toEqual({ status: 400, code });
      // The field is named: in the problems of the operation, or by GraphQL's own check of the variables.
      expect(JSON.stringify(body.errors)).toContain(parameter);
    }
    const badToken = await post('not-a-token', { ...base, text: 'Hello' });
    expect(badToken.status).toBe(401);
    expect((await getJson(scene.gateway, `/api/v1/tenders/${tender.id}/messages`, 'not-a-token')).status).toBe(401);
    const bad = await getJson(scene.gateway, `/api/v1/tenders/${tender.id}/messages?insurer_id=`, tokens.broker);
    expect(bad.status).toBe(400);
    expect((await getJson(scene.gateway, `/public/v1/tenders/${tender.id}/messages?insurer_id=${alpha}`, tokens.alpha)).status).toBe(400);
    expect(await scene.em().count(TenderMessage, { tender: tender.id })).toBe(0);
  });
});
