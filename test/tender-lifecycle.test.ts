import { beforeAll, describe, expect, it } from 'vitest';
import { Role, rolesFor } from '../src/access';
import { TenderHistoryEntry, Tender, ALL_STATUSES, TenderStatus } from '../src/tenders';
import { TRANSITIONS, type TenderOperation } from '../src/tenders/lifecycle/tender-lifecycle.service';
import { createTender, createWorld, receivedQuote } from './helpers/fixtures';
import { getJson, graphql, json, startGateway, tokenFor } from './helpers/gateway';
import { withGateway } from './helpers/scene';

const tokens: Record<string, string> = {};

const MUTATIONS: Record<TenderOperation, string> = {
  startNegotiation: 'mutation($id: ID!) { result: startNegotiation(tenderId: $id) { status } }',
  orderCover: 'mutation($id: ID!, $option: ID!) { result: orderCover(tenderId: $id, quoteOptionId: $option) { status } }',
  declineCoverOrder: 'mutation($id: ID!) { result: declineCoverOrder(tenderId: $id, reason: "capacity used up") { status } }',
  finaliseContract: 'mutation($id: ID!) { result: finaliseContract(tenderId: $id) { status } }',
  closeTender: 'mutation($id: ID!) { result: closeTender(tenderId: $id, reason: "customer withdrew") { status } }',
  reopenTender: 'mutation($id: ID!) { result: reopenTender(tenderId: $id, reason: "customer is back") { status } }',
};

/** A tender of broker 0 in `status`, with a quote from insurer 0 that it ordered cover on where that applies. */
async function tenderIn(status: TenderStatus) {
  const em = scene.gateway.em();
  const tender = await createTender(em, scene.world, { status });
  const option = await receivedQuote(em, tender, scene.world.insurers[0]);
  if (status === TenderStatus.IN_COVERNOTE || status === TenderStatus.SUCCESSFUL) {
    tender.orderedOption = option;
    tender.awardedInsurer = scene.world.insurers[0];
    await em.flush();
  }
  return { tender, option };
}

async function run(operation: TenderOperation, token: string, tenderId: string, optionId: string) {
  const { body } = await graphql(scene.gateway, token, MUTATIONS[operation], { id: tenderId, option: optionId });
  return body;
}

const snapshot = async (id: string) => {
  const em = scene.gateway.em();
  const tender = await em.findOneOrFail(Tender, { id });
  return {
    status: tender.status,
    version: tender.version,
    metadata: tender.changesMetadata,
    history: await em.count(TenderHistoryEntry, { tender: id }),
  };
};

const scene = withGateway({ per: 'file', world: true });

beforeAll(async () => {
  tokens.internal = await scene.token(Role.INTERNAL);
  tokens.analyst = await scene.token(Role.ANALYST);
  tokens.broker = await scene.token(Role.BROKER);
  tokens.otherBroker = await scene.token(Role.BROKER, 1);
  tokens.insurer = await scene.token(Role.INSURER);
  tokens.otherInsurer = await scene.token(Role.INSURER, 1);
});

describe('createTender', () => {
  const input = () => ({
    product: 'Cyber Protect',
    lineOfBusinessId: scene.world.lines.cyber.id,
    brokerCompanyId: scene.world.brokers[0].id,
    customer: {
      companyId: 'CUS-9',
      name: 'Neue Kunde GmbH',
      address: { street: 'Ring', houseNumber: '1', zip: '80331', city: 'München', country: 'DE' },
    },
    submitter: { accountId: 'ACC-77', email: 'anna@broker.example', firstName: 'Anna', lastName: 'Berg', salutation: 'Ms' },
    taxRate: 0.19,
    riskInformation: { employees: 40 },
  });

  it('creates a tender in QUOTES_AVAILABLE, stamped, with the submitter in charge and a history entry', async () => {
    const { body } = await graphql(
      scene.gateway,
      tokens.internal,
      `
        mutation ($input: CreateTenderInput!) {
          createTender(input: $input) {
            id
            status
            changesMetadata
            createdAt
            customer {
              name
              address {
                country
              }
            }
            personInCharge {
              accountId
              email
            }
            history {
              actor
              actorRole
              fromStatus
              toStatus
            }
          }
        }
      `,
      { input: input() },
    );
    expect(body.errors).toBeUndefined();
    const tender = body.data.createTender;
    expect(tender.status).toBe('QUOTES_AVAILABLE');
    expect(tender.changesMetadata).toEqual({ status_changed_to_quotes_available: tender.createdAt });
    expect(tender.customer).toEqual({ name: 'Neue Kunde GmbH', address: { country: 'DE' } });
    expect(tender.personInCharge).toEqual({ accountId: 'ACC-77', email: 'anna@broker.example' });
    expect(tender.history).toEqual([
      { actor: expect.stringMatching(/^internal-/), actorRole: 'INTERNAL', fromStatus: null, toStatus: 'QUOTES_AVAILABLE' },
    ]);
    // The broker sees it at once through REST.
    const rest = await getJson(scene.gateway, `/api/v1/tenders/${tender.id}`, tokens.broker);
    expect(rest.body.changes_metadata).toEqual({ status_changed_to_quotes_available: tender.createdAt });
  });

  it('names every invalid field with BAD_USER_INPUT and creates nothing', async () => {
    const before = await scene.gateway.em().count(Tender);
    const bad = input();
    bad.taxRate = 1.5;
    bad.customer.address.country = 'DEU';
    bad.submitter.email = 'anna-at-broker';
    bad.lineOfBusinessId = 'no-such-line';
    const { body } = await graphql(
      scene.gateway,
      tokens.internal,
      'mutation($input: CreateTenderInput!) { createTender(input: $input) { id } }',
      { input: bad },
    );
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(body.errors[0].extensions.errors.map((e: { parameter: string }) => e.parameter).sort()).toEqual(
      ['customer.address.country', 'lineOfBusinessId', 'submitter.email', 'taxRate'].sort(),
    );
    expect(await scene.gateway.em().count(Tender)).toBe(before);
  });

  it('is for internal tokens only', async () => {
    for (const role of ['broker', 'insurer', 'analyst']) {
      const { body } = await graphql(
        scene.gateway,
        tokens[role],
        'mutation($input: CreateTenderInput!) { createTender(input: $input) { id } }',
        {
          input: input(),
        },
      );
      expect(body.errors[0].extensions.code, role).toBe('FORBIDDEN');
    }
  });
});

describe('the transition table', () => {
  const allowed = (Object.entries(TRANSITIONS) as [TenderOperation, (typeof TRANSITIONS)[TenderOperation]][]).flatMap(([operation, rule]) =>
    rule.from.flatMap((from) => rolesFor(operation).map((role) => ({ operation, from, role, to: rule.to }))),
  );

  it.each(allowed)('$operation moves $from to $to for $role, stamping metadata and history', async ({ operation, from, role, to }) => {
    const { tender, option } = await tenderIn(from);
    const before = await snapshot(tender.id);
    const token = role === Role.INSURER ? tokens.insurer : role === Role.BROKER ? tokens.broker : tokens.internal;
    const body = await run(operation, token, tender.id, option.id);
    expect(body.errors).toBeUndefined();
    expect(body.data.result.status).toBe(to);
    const after = await snapshot(tender.id);
    expect(after.status).toBe(to);
    expect(after.version).toBe(before.version + 1);
    expect(after.history).toBe(before.history + 1);
    expect(Date.parse(after.metadata[`status_changed_to_${to.toLowerCase()}`])).toBeGreaterThan(Date.now() - 10_000);
    const entry = await scene.gateway.em().findOneOrFail(TenderHistoryEntry, { tender: tender.id }, { orderBy: { at: 'desc' } });
    expect(entry).toMatchObject({ fromStatus: from, toStatus: to, actorRole: role });
  });

  const disallowed = (Object.entries(TRANSITIONS) as [TenderOperation, (typeof TRANSITIONS)[TenderOperation]][]).flatMap(
    ([operation, rule]) => ALL_STATUSES.filter((status) => !rule.from.includes(status)).map((from) => ({ operation, from })),
  );

  it.each(disallowed)('$operation from $from is INVALID_TRANSITION and changes nothing', async ({ operation, from }) => {
    const { tender, option } = await tenderIn(from);
    const before = await snapshot(tender.id);
    const body = await run(operation, tokens.internal, tender.id, option.id);
    expect(body.errors[0].extensions.code).toBe('INVALID_TRANSITION');
    expect(await snapshot(tender.id)).toEqual(before);
  });

  it("wrong roles are FORBIDDEN, another broker's tender NOT_FOUND, and nothing changes", async () => {
    const cases: [TenderOperation, TenderStatus, string, string][] = [
      ['startNegotiation', TenderStatus.QUOTES_AVAILABLE, 'insurer', 'FORBIDDEN'],
      ['startNegotiation', TenderStatus.QUOTES_AVAILABLE, 'analyst', 'FORBIDDEN'],
      ['closeTender', TenderStatus.IN_NEGOTIATION, 'insurer', 'FORBIDDEN'],
      ['reopenTender', TenderStatus.CLOSED, 'analyst', 'FORBIDDEN'],
      ['finaliseContract', TenderStatus.IN_COVERNOTE, 'broker', 'FORBIDDEN'],
      ['finaliseContract', TenderStatus.IN_COVERNOTE, 'otherInsurer', 'NOT_FOUND'],
      ['orderCover', TenderStatus.QUOTES_AVAILABLE, 'otherBroker', 'NOT_FOUND'],
      ['closeTender', TenderStatus.QUOTES_AVAILABLE, 'otherBroker', 'NOT_FOUND'],
    ];
    for (const [operation, from, who, code] of cases) {
      const { tender, option } = await tenderIn(from);
      const before = await snapshot(tender.id);
      const body = await run(operation, tokens[who], tender.id, option.id);
      expect(body.errors?.[0].extensions.code, `${operation} by ${who}`).toBe(code);
      expect(await snapshot(tender.id)).toEqual(before);
    }
  });

  it('an insurer that was invited but not ordered cannot finalise: FORBIDDEN', async () => {
    const { tender, option } = await tenderIn(TenderStatus.IN_COVERNOTE);
    await receivedQuote(scene.gateway.em(), tender, scene.world.insurers[1]);
    const body = await run('finaliseContract', tokens.otherInsurer, tender.id, option.id);
    expect(body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('of concurrent changes of one tender exactly one succeeds', async () => {
    const { tender, option } = await tenderIn(TenderStatus.QUOTES_AVAILABLE);
    const results = await Promise.all(Array.from({ length: 8 }, () => run('closeTender', tokens.broker, tender.id, option.id)));
    const winners = results.filter((body) => !body.errors);
    expect(winners).toHaveLength(1);
    for (const loser of results.filter((body) => body.errors))
      expect(['CONFLICT', 'INVALID_TRANSITION']).toContain(loser.errors[0].extensions.code);
    expect((await snapshot(tender.id)).history).toBe(1);
  });

  it('orderCover takes only an option this tender received, and the proposal marks it', async () => {
    const { tender: first } = await tenderIn(TenderStatus.QUOTES_AVAILABLE);
    const { tender: second, option } = await tenderIn(TenderStatus.QUOTES_AVAILABLE);
    const foreign = await run('orderCover', tokens.broker, first.id, option.id);
    expect(foreign.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: [{ parameter: 'quoteOptionId' }] });
    expect((await run('orderCover', tokens.broker, second.id, option.id)).errors).toBeUndefined();
    const { body } = await graphql(
      scene.gateway,
      tokens.broker,
      'query($id: ID!) { proposal(tenderId: $id) { orderedOptionId entries { quoteRequest { options { id ordered } } } } }',
      { id: second.id },
    );
    expect(body.data.proposal.orderedOptionId).toBe(option.id);
    expect(body.data.proposal.entries[0].quoteRequest.options).toEqual([{ id: option.id, ordered: true }]);
    // Another invited insurer learns neither which option was ordered nor who asked for quotes.
    await receivedQuote(scene.gateway.em(), second, scene.world.insurers[1]);
    const other = await graphql(
      scene.gateway,
      tokens.otherInsurer,
      'query($id: ID!) { proposal(tenderId: $id) { orderedOptionId entries { quoteRequest { requestedBy options { ordered } } } } }',
      { id: second.id },
    );
    expect(other.body.data.proposal).toEqual({
      orderedOptionId: null,
      entries: [{ quoteRequest: { requestedBy: null, options: [{ ordered: false }] } }],
    });
  });

  it('reopening clears the order: the insurer can no longer finalise, the broker orders again', async () => {
    const { tender, option } = await tenderIn(TenderStatus.IN_COVERNOTE);
    await run('closeTender', tokens.broker, tender.id, option.id);
    await run('reopenTender', tokens.broker, tender.id, option.id);
    expect((await scene.gateway.em().findOneOrFail(Tender, { id: tender.id })).orderedOption).toBeNull();
    expect((await run('orderCover', tokens.broker, tender.id, option.id)).data.result.status).toBe('IN_COVERNOTE');
  });
});

describe('policy documentation', () => {
  const post = (token: string, id: string, body: unknown) =>
    fetch(`${scene.gateway.url}/integration/v1/tenders/${id}/policy-documentation`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });

  it('the winning insurer confirms it over REST; the tender then shows it CONFIRMED; repeating is harmless', async () => {
    const { tender } = await tenderIn(TenderStatus.SUCCESSFUL);
    const pending = await getJson(scene.gateway, `/public/v1/tenders/${tender.id}`, tokens.insurer);
    // A contract finalised before policy periods were recorded shows none.
    expect(pending.body.policy_documentation).toEqual({
      status: 'PENDING',
      policy_number: null,
      confirmed_at: null,
      document_id: null,
      period: null,
    });
    const response = await post(tokens.insurer, tender.id, { policy_number: 'POL-2026/001', confirmed_at: '2026-11-20T10:00:00.000Z' });
    expect(response.status).toBe(200);
    expect((await json(response)).policy_documentation).toEqual({
      status: 'CONFIRMED',
      policy_number: 'POL-2026/001',
      confirmed_at: '2026-11-20T10:00:00.000Z',
      document_id: null,
      period: null,
    });
    expect((await post(tokens.insurer, tender.id, { policy_number: 'POL-2026/001' })).status).toBe(200);
    const changed = await post(tokens.insurer, tender.id, { policy_number: 'POL-OTHER' });
    expect(changed.status).toBe(409);
    expect((await json(changed)).code).toBe('CONFLICT');
  });

  it('refuses a confirmation time before the contract was finalised or beyond the clock skew ahead of now, naming confirmed_at', async () => {
    const { tender } = await tenderIn(TenderStatus.SUCCESSFUL);
    const succeededAt = tender.changesMetadata.status_changed_to_successful;
    for (const confirmed_at of [
      '0001-01-01T00:00:00.000Z',
      new Date(Date.parse(succeededAt) - 1).toISOString(),
      new Date(Date.now() + 5 * 60_000).toISOString(),
    ]) {
      const response = await post(tokens.insurer, tender.id, { policy_number: 'POL-T1', confirmed_at });
      expect(response.status, confirmed_at).toBe(400);
      expect((await json(response)).errors[0].message, confirmed_at).toMatch(
        /must not lie (before the contract was finalised|in the future)/,
      );
    }
    expect((await post(tokens.insurer, tender.id, { policy_number: 'POL-T1', confirmed_at: succeededAt })).status).toBe(200);
  });

  it('a losing insurer gets the same answer as an invited insurer on a tender without any order (REST and GraphQL)', async () => {
    const { tender: awarded } = await tenderIn(TenderStatus.IN_COVERNOTE);
    await receivedQuote(scene.gateway.em(), awarded, scene.world.insurers[1]); // insurer 1 lost
    const { tender: unordered } = await tenderIn(TenderStatus.QUOTES_AVAILABLE);
    await receivedQuote(scene.gateway.em(), unordered, scene.world.insurers[1]); // insurer 1 invited, nothing ordered
    const rest = async (id: string) => {
      const response = await post(tokens.otherInsurer, id, { policy_number: 'POL-1' });
      return { status: response.status, body: await json(response) };
    };
    const losing = await rest(awarded.id);
    expect(losing).toEqual(await rest(unordered.id));
    expect(losing).toMatchObject({
      status: 403,
      body: { code: 'FORBIDDEN', detail: 'Only the insurer of the ordered option may confirm the policy documentation' },
    });
    for (const operation of ['finaliseContract'] as const) {
      const lost = await run(operation, tokens.otherInsurer, awarded.id, '');
      const none = await run(operation, tokens.otherInsurer, unordered.id, '');
      expect(lost.errors[0], operation).toMatchObject({
        message: 'Only the insurer of the ordered option may finalise the contract',
        extensions: { code: 'FORBIDDEN' },
      });
      expect(none.errors[0].message).toBe(lost.errors[0].message);
      expect(none.errors[0].extensions).toEqual(lost.errors[0].extensions);
    }
    // The awarded insurer still learns the status: it is not SUCCESSFUL yet.
    expect((await post(tokens.insurer, awarded.id, { policy_number: 'POL-1' })).status).toBe(409);
    expect((await run('finaliseContract', tokens.insurer, unordered.id, '')).errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('concurrent confirmations with the same policy number all succeed', async () => {
    const { tender } = await tenderIn(TenderStatus.SUCCESSFUL);
    const responses = await Promise.all(Array.from({ length: 4 }, () => post(tokens.insurer, tender.id, { policy_number: 'POL-SAME' })));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  });

  it('no other insurer, no broker, and not before SUCCESSFUL; bad bodies are 400', async () => {
    const { tender } = await tenderIn(TenderStatus.SUCCESSFUL);
    await receivedQuote(scene.gateway.em(), tender, scene.world.insurers[1]);
    expect((await post(tokens.otherInsurer, tender.id, { policy_number: 'X-1' })).status).toBe(403);
    expect((await post(tokens.broker, tender.id, { policy_number: 'X-1' })).status).toBe(403);
    const { tender: open } = await tenderIn(TenderStatus.IN_COVERNOTE);
    const early = await post(tokens.insurer, open.id, { policy_number: 'X-1' });
    expect(early.status).toBe(409);
    expect((await json(early)).code).toBe('INVALID_TRANSITION');
    const bodies = [
      {},
      { policy_number: 7 },
      { policy_number: 'has spaces' },
      { policy_number: 'P-1', confirmed_at: 'soon' },
      { policy_number: 'P-1', confirmed_at: '0000-01-01T00:00:00+01:00' },
      { policy_number: 'P-1', extra: true },
    ];
    for (const body of bodies) {
      expect((await post(tokens.insurer, tender.id, body)).status, JSON.stringify(body)).toBe(400);
    }
    expect(
      (
        await fetch(`${scene.gateway.url}/integration/v1/tenders/${tender.id}/policy-documentation`, {
          headers: { authorization: `Bearer ${tokens.insurer}` },
        })
      ).status,
    ).toBe(405);
  });
});

describe('history and statistics', () => {
  it('Tender.history lists every change oldest first, with actors hidden from insurers', async () => {
    const { tender, option } = await tenderIn(TenderStatus.QUOTES_AVAILABLE);
    await run('startNegotiation', tokens.broker, tender.id, option.id);
    await run('orderCover', tokens.broker, tender.id, option.id);
    const query = 'query($id: ID!) { tender(id: $id) { history { actor actorRole fromStatus toStatus } } }';
    const broker = await graphql(scene.gateway, tokens.broker, query, { id: tender.id });
    expect(broker.body.data.tender.history.map((h: any) => [h.fromStatus, h.toStatus, h.actorRole])).toEqual([
      ['QUOTES_AVAILABLE', 'IN_NEGOTIATION', 'BROKER'],
      ['IN_NEGOTIATION', 'IN_COVERNOTE', 'BROKER'],
    ]);
    const insurer = await graphql(scene.gateway, tokens.insurer, query, { id: tender.id });
    expect(insurer.body.data.tender.history.every((h: any) => h.actor === null)).toBe(true);
  });

  it('tenderStatistics counts by status and line of business, response rates, times and premiums, for analysts', async () => {
    const fresh = await startGateway();
    try {
      const em = fresh.em();
      const w = await createWorld(em);
      const from = new Date('2026-03-01T00:00:00.000Z');
      const inside = (day: number) => new Date(Date.parse('2026-03-01T00:00:00.000Z') + day * 86_400_000);
      const a = await createTender(em, w, { createdAt: inside(1), status: TenderStatus.CLOSED });
      const b = await createTender(em, w, { createdAt: inside(2), line: w.lines.dno });
      await createTender(em, w, { createdAt: new Date('2025-01-01T00:00:00.000Z') });
      await receivedQuote(em, a, w.insurers[0], 100);
      await receivedQuote(em, b, w.insurers[0], 300);
      await receivedQuote(em, b, w.insurers[1], 200);
      const analyst = await tokenFor(fresh, Role.ANALYST);
      const { body } = await graphql(
        fresh,
        analyst,
        `
          query ($from: DateTimeISO) {
            tenderStatistics(from: $from) {
              tenders
              byStatus {
                status
                count
              }
              byLineOfBusiness {
                lineOfBusiness {
                  name
                }
                count
              }
              insurers {
                insurer {
                  name
                }
                requests
                responses
                responseRate
              }
              premiums {
                lineOfBusiness {
                  name
                }
                options
                min
                median
                max
              }
            }
          }
        `,
        { from: from.toISOString() },
      );
      expect(body.errors).toBeUndefined();
      const stats = body.data.tenderStatistics;
      expect(stats.tenders).toBe(2);
      expect(stats.byStatus).toEqual([
        { status: 'CLOSED', count: 1 },
        { status: 'QUOTES_AVAILABLE', count: 1 },
      ]);
      expect(stats.byLineOfBusiness).toEqual([
        { lineOfBusiness: { name: 'Cyber' }, count: 1 },
        { lineOfBusiness: { name: 'D&O' }, count: 1 },
      ]);
      expect(stats.insurers).toEqual([
        { insurer: { name: 'Alpha Insurance' }, requests: 2, responses: 2, responseRate: 1 },
        { insurer: { name: 'Beta Insurance' }, requests: 1, responses: 1, responseRate: 1 },
      ]);
      expect(stats.premiums).toEqual([
        { lineOfBusiness: { name: 'Cyber' }, options: 1, min: 100, median: 100, max: 100 },
        { lineOfBusiness: { name: 'D&O' }, options: 2, min: 200, median: 250, max: 300 },
      ]);
      const broker = await tokenFor(fresh, Role.BROKER, { brokerCompanyId: w.brokers[0].id });
      expect((await graphql(fresh, broker, '{ tenderStatistics { tenders } }')).body.errors[0].extensions.code).toBe('FORBIDDEN');
    } finally {
      await fresh.close();
    }
  });
});
