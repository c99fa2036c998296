import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import type { Insurer } from '../src/insurers';
import {
  QuoteOption,
  QuoteRequest,
  QuoteRequestStatus,
  SubjectivityDecision,
  SubjectivityStatus,
  TrackedSubjectivity,
  decideSubjectivity,
  type SubjectivityDeps,
} from '../src/quotes';
import { storeOptions } from '../src/quotes/quote-answer-store';
import { readQuoteAnswer } from '../src/quotes/quote-answer';
import { afterWorkingDays } from '../src/quotes/subjectivities/bind-reminders';
import type { Subjectivity } from '../src/quotes/quote-option.entity';
import { SubjectivityStage } from '../src/quotes/quote-request-status';
import { Tender, TenderHistoryEntry, TenderInvitation, TenderStatus } from '../src/tenders';
import { WebhookDelivery, type WebhookEventType } from '../src/webhooks';
import { createTender, createWorld, type World } from './helpers/fixtures';
import { graphql, json, startGateway, tokenFor, type Gateway } from './helpers/gateway';
import { JumpingClock } from './helpers/jumping-clock';
import { withGateway } from './helpers/scene';

/** Issue 41: from cover order to policy, subjectivities cleared one by one, the order answered, the policy period. */

const PRE = (text: string, dueAt?: string): Subjectivity => ({ text, stage: SubjectivityStage.PRE_BIND, ...(dueAt ? { dueAt } : {}) });
const POST = (text: string): Subjectivity => ({ text, stage: SubjectivityStage.POST_BIND });

/** A QUOTED request of `insurer` with one option carrying `subjectivities`, stored as the dispatcher stores it. */
async function quoteWith(gateway: Gateway, tender: Tender, insurer: Insurer, subjectivities: Subjectivity[], premium = 1000) {
  const em = gateway.em();
  const request = em.create(QuoteRequest, {
    tender: tender.id,
    insurer: insurer.id,
    status: QuoteRequestStatus.QUOTED,
    limits: [{ insurance_sum: 1_000_000, deductible: 0 }],
    riskInformation: {},
    insurerReference: `Q-${tender.id}-${insurer.id}-${premium}`,
    requestedBy: 'fixture',
    quotedAt: new Date(),
  });
  em.create(TenderInvitation, { tender: tender.id, insurer: insurer.id, createdAt: new Date() });
  await em.flush();
  await storeOptions(em, { id: request.id, tenderId: tender.id, insurerId: insurer.id }, [
    { insurance_sum: 1_000_000, deductible: 0, premium, subjectivities: subjectivities.length > 0 ? subjectivities : null },
  ]);
  const option = await em.findOneOrFail(QuoteOption, { quoteRequest: request.id });
  const ids = (await em.find(TrackedSubjectivity, { quoteOption: option.id }, { orderBy: { position: 'asc' } })).map((s) => s.id);
  return { option, ids };
}

const ORDER = 'mutation($id: ID!, $option: ID!) { orderCover(tenderId: $id, quoteOptionId: $option) { status } }';
const FINALISE = 'mutation($id: ID!) { finaliseContract(tenderId: $id) { status policyDocumentation { period { start end } } } }';
const RESPOND = `mutation($input: RespondToSubjectivityInput!) { respondToSubjectivity(input: $input) {
  id status history { kind actor actorRole text documentIds at } } }`;
const DECIDE = `mutation($input: DecideSubjectivityInput!) { decideSubjectivity(input: $input) {
  id status history { kind actor actorRole text at } } }`;
const ACCEPT_ORDER = 'mutation($id: ID!, $day: String!) { acceptCoverOrder(tenderId: $id, inceptionDate: $day) { status } }';
const DECLINE_ORDER = 'mutation($id: ID!, $reason: String!) { declineCoverOrder(tenderId: $id, reason: $reason) { status } }';

const codeOf = (body: { errors?: { extensions?: { code?: string } }[] }) => body.errors?.[0]?.extensions?.code;

describe('the bind gate', () => {
  const scene = withGateway({ per: 'file', world: true, webhooks: 'fast' });
  const tokens = {} as Record<'broker' | 'otherBroker' | 'insurer' | 'otherInsurer' | 'internal' | 'analyst', string>;

  beforeAll(async () => {
    tokens.broker = await scene.token(Role.BROKER);
    tokens.otherBroker = await scene.token(Role.BROKER, 1);
    tokens.insurer = await scene.token(Role.INSURER);
    tokens.otherInsurer = await scene.token(Role.INSURER, 1);
    tokens.internal = await scene.token(Role.INTERNAL);
    tokens.analyst = await scene.token(Role.ANALYST);
  });

  const run = async (token: string, query: string, variables: Record<string, unknown>) =>
    (await graphql(scene.gateway, token, query, variables)).body;

  /** A tender of broker 0 ordered on insurer 0's option with these subjectivities. */
  async function ordered(subjectivities: Subjectivity[]) {
    const tender = await createTender(scene.em(), scene.world);
    const quote = await quoteWith(scene.gateway, tender, scene.world.insurers[0], subjectivities);
    const order = await run(tokens.broker, ORDER, { id: tender.id, option: quote.option.id });
    expect(order.data?.orderCover.status).toBe('IN_COVERNOTE');
    return { tender, ...quote };
  }

  it('refuses to finalise with SUBJECTIVITIES_OPEN, listing only the open pre-bind ones, until each is accepted or waived', async () => {
    const { tender, ids } = await ordered([PRE('Signed application form'), PRE('MFA on remote access'), POST('Security questionnaire')]);
    const refused = await run(tokens.insurer, FINALISE, { id: tender.id });
    expect(codeOf(refused)).toBe('SUBJECTIVITIES_OPEN');
    const problems = refused.errors[0].extensions.problems as { pointer: string; message: string }[];
    expect(problems.map((problem) => problem.pointer)).toEqual([`/subjectivities/${ids[0]}`, `/subjectivities/${ids[1]}`]);
    expect(problems[0].message).toContain('Signed application form');
    expect((await scene.em().findOneOrFail(Tender, { id: tender.id })).status).toBe(TenderStatus.IN_COVERNOTE);

    // The broker responds, the insurer rejects (asking again), the broker responds again, the insurer accepts.
    const responded = await run(tokens.broker, RESPOND, { input: { subjectivityId: ids[0], text: 'Signed by the CEO on 3 March' } });
    expect(responded.data.respondToSubjectivity.status).toBe('RESPONDED');
    const rejected = await run(tokens.insurer, DECIDE, {
      input: { subjectivityId: ids[0], decision: 'REJECT', reason: 'Page 2 is missing' },
    });
    expect(rejected.data.decideSubjectivity.status).toBe('REJECTED');
    expect(codeOf(await run(tokens.insurer, FINALISE, { id: tender.id }))).toBe('SUBJECTIVITIES_OPEN');
    await run(tokens.broker, RESPOND, { input: { subjectivityId: ids[0], text: 'Both pages now' } });
    const accepted = await run(tokens.insurer, DECIDE, { input: { subjectivityId: ids[0], decision: 'ACCEPT' } });
    expect(accepted.data.decideSubjectivity.status).toBe('ACCEPTED');
    expect(accepted.data.decideSubjectivity.history.map((step: { kind: string }) => step.kind)).toEqual([
      'RESPONDED',
      'REJECTED',
      'RESPONDED',
      'ACCEPTED',
    ]);
    // Insurers see no actors; the roles and times are there.
    expect(accepted.data.decideSubjectivity.history[1]).toMatchObject({ actor: null, actorRole: 'INSURER', text: 'Page 2 is missing' });
    const still = await run(tokens.insurer, FINALISE, { id: tender.id });
    expect(still.errors[0].extensions.problems).toHaveLength(1);

    // An internal user waives the other; the contract is finalised, the pending order counting as accepted.
    const waived = await run(tokens.internal, DECIDE, {
      input: { subjectivityId: ids[1], decision: 'WAIVE', reason: 'Compensating control' },
    });
    expect(waived.data.decideSubjectivity.status).toBe('WAIVED');
    const finalised = await run(tokens.insurer, FINALISE, { id: tender.id });
    expect(finalised.data.finaliseContract.status).toBe('SUCCESSFUL');
    const stored = await scene.em().findOneOrFail(Tender, { id: tender.id });
    expect(stored.coverAcceptedAt).toBeInstanceOf(Date);

    // The post-bind subjectivity stays tracked after SUCCESSFUL.
    const late = await run(tokens.broker, RESPOND, { input: { subjectivityId: ids[2], text: 'Questionnaire attached' } });
    expect(late.data.respondToSubjectivity.status).toBe('RESPONDED');
    expect(
      (await run(tokens.insurer, DECIDE, { input: { subjectivityId: ids[2], decision: 'ACCEPT' } })).data.decideSubjectivity.status,
    ).toBe('ACCEPTED');

    // Every step is in the tender's history with actor and time; the broker sees the actors.
    const history = await run(
      tokens.broker,
      `{ tender(id: "${tender.id}") { history { step actor actorRole at subjectivityId reason } } }`,
      {},
    );
    const steps = (
      history.data.tender.history as { step: string | null; actor: string | null; at: string; subjectivityId: string }[]
    ).filter((entry) => entry.step);
    expect(steps.map((entry) => entry.step)).toEqual([
      'SUBJECTIVITY_RESPONDED',
      'SUBJECTIVITY_REJECTED',
      'SUBJECTIVITY_RESPONDED',
      'SUBJECTIVITY_ACCEPTED',
      'SUBJECTIVITY_WAIVED',
      'SUBJECTIVITY_RESPONDED',
      'SUBJECTIVITY_ACCEPTED',
    ]);
    for (const entry of steps) {
      expect(entry.actor).toMatch(/.+/);
      expect(Number.isNaN(Date.parse(entry.at))).toBe(false);
    }
  });

  it('an insurer that follows only the spec finalises as before when no pre-bind subjectivity is open', async () => {
    const plain = await ordered([]);
    expect((await run(tokens.insurer, FINALISE, { id: plain.tender.id })).data.finaliseContract.status).toBe('SUCCESSFUL');
    const postOnly = await ordered([POST('Questionnaire within 30 days')]);
    expect((await run(tokens.insurer, FINALISE, { id: postOnly.tender.id })).data.finaliseContract.status).toBe('SUCCESSFUL');
  });

  it('only the tender broker responds and only the quoting insurer or an internal user decides; a CLOSED tender takes neither', async () => {
    const { tender, ids } = await ordered([PRE('Signed application form')]);
    const input = { subjectivityId: ids[0], text: 'Here it is' };
    expect(codeOf(await run(tokens.otherBroker, RESPOND, { input }))).toBe('NOT_FOUND');
    expect(codeOf(await run(tokens.insurer, RESPOND, { input }))).toBe('FORBIDDEN');
    expect(codeOf(await run(tokens.analyst, RESPOND, { input }))).toBe('FORBIDDEN');
    const decision = { subjectivityId: ids[0], decision: 'ACCEPT' };
    expect(codeOf(await run(tokens.otherInsurer, DECIDE, { input: decision }))).toBe('NOT_FOUND');
    expect(codeOf(await run(tokens.broker, DECIDE, { input: decision }))).toBe('FORBIDDEN');
    expect(codeOf(await run(tokens.analyst, DECIDE, { input: decision }))).toBe('FORBIDDEN');
    expect(codeOf(await run(tokens.analyst, `{ tenderSubjectivities(tenderId: "${tender.id}") { id } }`, {}))).toBe('FORBIDDEN');
    // An invited insurer whose own option was not ordered: the tender is withheld from it, and so is this.
    const rival = await createTender(scene.em(), scene.world);
    const theirs = await quoteWith(scene.gateway, rival, scene.world.insurers[1], [PRE('Their condition')]);
    const ours = await quoteWith(scene.gateway, rival, scene.world.insurers[0], [PRE('Our condition')], 900);
    await run(tokens.broker, ORDER, { id: rival.id, option: ours.option.id });
    expect(codeOf(await run(tokens.otherInsurer, DECIDE, { input: { subjectivityId: theirs.ids[0], decision: 'ACCEPT' } }))).toBe(
      'CONFLICT',
    );
    expect(codeOf(await run(tokens.broker, RESPOND, { input: { subjectivityId: theirs.ids[0], text: 'x' } }))).toBe('CONFLICT');
    // A document that is not the tender's is refused, by name.
    const foreign = await run(tokens.broker, RESPOND, { input: { ...input, documentIds: ['no-such-document'] } });
    expect(codeOf(foreign)).toBe('BAD_USER_INPUT');

    await run(tokens.broker, 'mutation($id: ID!) { closeTender(tenderId: $id, reason: "withdrawn") { status } }', { id: tender.id });
    expect(codeOf(await run(tokens.broker, RESPOND, { input }))).toBe('INVALID_TRANSITION');
    expect(codeOf(await run(tokens.internal, DECIDE, { input: decision }))).toBe('INVALID_TRANSITION');
    // Closed: the insurer sees none of it, the broker still reads them.
    const insurerRead = await fetch(`${scene.gateway.url}/public/v1/tenders/${tender.id}/subjectivities`, {
      headers: { authorization: `Bearer ${tokens.insurer}` },
    });
    expect((await json(insurerRead)).payload).toEqual([]);
  });

  it('no concurrent mix of decisions, responses and finalisations finalises with an open pre-bind subjectivity', async () => {
    for (let round = 0; round < 4; round++) {
      const { tender, ids } = await ordered([PRE('Signed application form'), PRE('Payment received')]);
      await run(tokens.broker, RESPOND, { input: { subjectivityId: ids[0], text: 'Signed' } });
      await run(tokens.insurer, DECIDE, { input: { subjectivityId: ids[1], decision: 'ACCEPT' } });
      // The last open one is decided while two finalisations, a rejection and a response race.
      const outcomes = await Promise.all([
        run(tokens.insurer, FINALISE, { id: tender.id }),
        run(tokens.insurer, DECIDE, {
          input: { subjectivityId: ids[0], decision: round % 2 === 0 ? 'ACCEPT' : 'REJECT', reason: 'checked' },
        }),
        run(tokens.internal, FINALISE, { id: tender.id }),
        run(tokens.broker, RESPOND, { input: { subjectivityId: ids[0], text: 'Again' } }),
      ]);
      const em = scene.em();
      const stored = await em.findOneOrFail(Tender, { id: tender.id });
      const pre = await em.find(TrackedSubjectivity, { tender: tender.id });
      const finalisedBy = outcomes.filter((body) => body.data?.finaliseContract?.status === 'SUCCESSFUL').length;
      if (stored.status === TenderStatus.SUCCESSFUL) {
        expect(pre.every((s) => s.status === SubjectivityStatus.ACCEPTED || s.status === SubjectivityStatus.WAIVED)).toBe(true);
        expect(finalisedBy).toBe(1);
      } else {
        expect(finalisedBy).toBe(0);
        for (const body of [outcomes[0], outcomes[2]])
          expect(['SUBJECTIVITIES_OPEN', 'CONFLICT', 'INVALID_TRANSITION']).toContain(codeOf(body));
      }
    }
  });

  it('the insurer of the ordered option accepts the order (REST) or declines it: back to IN_NEGOTIATION with the reason, order dropped', async () => {
    const { tender } = await ordered([]);
    const post = (token: string, id: string, body: unknown) =>
      fetch(`${scene.gateway.url}/integration/v1/tenders/${id}/cover-order/decision`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    // An insurer never invited does not see the tender at all.
    expect((await post(tokens.otherInsurer, tender.id, { decision: 'ACCEPT', inception_date: '2027-03-01' })).status).toBe(404);
    expect((await post(tokens.insurer, tender.id, { decision: 'ACCEPT' })).status).toBe(400);
    const accepted = await post(tokens.insurer, tender.id, { decision: 'ACCEPT', inception_date: '2027-03-01' });
    expect(accepted.status).toBe(200);
    expect((await json(accepted)).status).toBe('IN_COVERNOTE');
    // The policy period follows the inception date: one year less a day (2028 is a leap year).
    const finalised = await run(tokens.insurer, FINALISE, { id: tender.id });
    expect(finalised.data.finaliseContract.policyDocumentation.period).toEqual({ start: '2027-03-01', end: '2028-02-29' });
    const rest = await fetch(`${scene.gateway.url}/api/v1/tenders/${tender.id}`, { headers: { authorization: `Bearer ${tokens.broker}` } });
    expect((await json(rest)).policy_documentation.period).toEqual({ start: '2027-03-01', end: '2028-02-29' });

    const second = await ordered([]);
    expect(codeOf(await run(tokens.insurer, DECLINE_ORDER, { id: second.tender.id, reason: '' }))).toBe('BAD_USER_INPUT');
    expect(codeOf(await run(tokens.broker, DECLINE_ORDER, { id: second.tender.id, reason: 'x' }))).toBe('FORBIDDEN');
    const declined = await run(tokens.insurer, DECLINE_ORDER, { id: second.tender.id, reason: 'Capacity used up' });
    expect(declined.data.declineCoverOrder.status).toBe('IN_NEGOTIATION');
    const stored = await scene.em().findOneOrFail(Tender, { id: second.tender.id });
    expect([stored.orderedOption, stored.awardedInsurer]).toEqual([null, null]);
    const entry = await scene.em().findOneOrFail(TenderHistoryEntry, { tender: second.tender.id, step: 'COVER_DECLINED' });
    expect(entry).toMatchObject({
      fromStatus: 'IN_COVERNOTE',
      toStatus: 'IN_NEGOTIATION',
      reason: 'Capacity used up',
      actorRole: 'insurer',
    });
    // The broker may order another option.
    const other = await quoteWith(scene.gateway, second.tender, scene.world.insurers[1], [], 1200);
    expect((await run(tokens.broker, ORDER, { id: second.tender.id, option: other.option.id })).data.orderCover.status).toBe(
      'IN_COVERNOTE',
    );
    expect(codeOf(await run(tokens.insurer, ACCEPT_ORDER, { id: second.tender.id, day: '2027-01-01' }))).toBe('FORBIDDEN');
  });

  it('the quoting insurer decides over REST, and the REST reads show each side its own', async () => {
    const { tender, ids } = await ordered([PRE('Signed application form')]);
    const decide = await fetch(`${scene.gateway.url}/integration/v1/subjectivities/${ids[0]}/decision`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.insurer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'WAIVE', reason: 'Not needed for this size' }),
    });
    expect(decide.status).toBe(200);
    expect(await json(decide)).toMatchObject({ _id: ids[0], status: 'WAIVED', stage: 'PRE_BIND' });
    const broker = await fetch(`${scene.gateway.url}/api/v1/tenders/${tender.id}/subjectivities`, {
      headers: { authorization: `Bearer ${tokens.broker}` },
    });
    const listed = await json(broker);
    expect(listed.metadata.count).toBe('1');
    expect(listed.payload[0].history[0]).toMatchObject({ kind: 'WAIVED', actor_role: 'INSURER', text: 'Not needed for this size' });
    const otherBroker = await fetch(`${scene.gateway.url}/api/v1/tenders/${tender.id}/subjectivities`, {
      headers: { authorization: `Bearer ${tokens.otherBroker}` },
    });
    expect(otherBroker.status).toBe(404);
    // The proposal overview shows each option's subjectivities with their status.
    const proposal = await run(
      tokens.broker,
      `{ proposal(tenderId: "${tender.id}") { entries { quoteRequest { options { subjectivities { id status stage } } } } } }`,
      {},
    );
    expect(proposal.data.proposal.entries[0].quoteRequest.options[0].subjectivities).toEqual([
      { id: ids[0], status: 'WAIVED', stage: 'PRE_BIND' },
    ]);
  });

  it('another adapter (an underwriter quote page) decides through the same domain function, with the same rules', async () => {
    const { ids } = await ordered([PRE('Signed application form')]);
    const as = (insurer: Insurer): SubjectivityDeps => ({
      em: scene.em(),
      viewer: {
        appId: 'quote-page',
        role: Role.INSURER,
        insurerId: insurer.id,
        jti: 'page',
        expiresAt: new Date(8.64e15),
        tokenGeneration: 0,
      },
      listeners: [],
      now: () => new Date(),
    });
    await expect(
      decideSubjectivity(as(scene.world.insurers[1]), { subjectivityId: ids[0], decision: SubjectivityDecision.ACCEPT }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const decided = await decideSubjectivity(as(scene.world.insurers[0]), { subjectivityId: ids[0], decision: SubjectivityDecision.WAIVE });
    expect(decided.status).toBe(SubjectivityStatus.WAIVED);
    expect(decided.steps.getItems().map((step) => [step.actor, step.kind])).toEqual([['quote-page', 'WAIVED']]);
  });

  it('webhooks reach only the tender broker company and the insurer concerned', async () => {
    const register = async (token: string, path: string, types: string[]) => {
      const response = await fetch(`${scene.gateway.url}/integration/v1/webhook-endpoints`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `http://127.0.0.1:9/${path}`, event_types: types }),
      });
      expect(response.status).toBe(201);
    };
    const brokerTypes = ['subjectivity.decided', 'subjectivity.overdue', 'cover.accepted', 'cover.declined', 'cover_order.overdue'];
    const insurerTypes = ['subjectivity.responded', 'subjectivity.overdue', 'cover_order.overdue'];
    await register(tokens.broker, 'broker0', brokerTypes);
    await register(tokens.otherBroker, 'broker1', brokerTypes);
    await register(tokens.insurer, 'insurer0', insurerTypes);
    await register(tokens.otherInsurer, 'insurer1', insurerTypes);
    const { tender, ids } = await ordered([PRE('Signed application form')]);
    await run(tokens.broker, RESPOND, { input: { subjectivityId: ids[0], text: 'Signed' } });
    await run(tokens.insurer, DECIDE, { input: { subjectivityId: ids[0], decision: 'ACCEPT' } });
    await run(tokens.insurer, ACCEPT_ORDER, { id: tender.id, day: '2027-01-01' });
    const deliveries = await scene.em().find(WebhookDelivery, {}, { populate: ['endpoint'] });
    const seen = deliveries
      .filter((delivery) => (JSON.parse(delivery.payload) as { data: { tender_id: string } }).data.tender_id === tender.id)
      .map((delivery) => `${new URL(delivery.endpoint.url).pathname.slice(1)} ${delivery.eventType}`)
      .sort();
    expect(seen).toEqual(['broker0 cover.accepted', 'broker0 subjectivity.decided', 'insurer0 subjectivity.responded']);
  });
});

describe('reading due dates', () => {
  const rules = { zone: 'Europe/Berlin', now: new Date('2026-05-01T00:00:00Z'), earliestValidity: null, refuseControls: false };
  const limits = [{ insurance_sum: 1000, deductible: 0 }];
  const option = (subjectivities: unknown) => ({ quote_options: [{ insurance_sum: 1000, deductible: 0, premium: 10, subjectivities }] });

  it('takes an optional due_at beside stage and text, an RFC 3339 timestamp or a day (its end in Berlin), and names a malformed one', () => {
    const read = readQuoteAnswer(
      option([
        { text: 'MFA', stage: 'PRE_BIND', due_at: '2026-06-01T12:00:00+02:00' },
        { text: 'Q', stage: 'POST_BIND' },
        { text: 'Backups', stage: 'POST_BIND', due_at: '2026-12-31' },
      ]),
      limits,
      rules,
    );
    expect(read.answer?.options[0].subjectivities).toEqual([
      { text: 'MFA', stage: 'PRE_BIND', dueAt: '2026-06-01T10:00:00.000Z' },
      { text: 'Q', stage: 'POST_BIND' },
      // 31 December is winter time in Berlin (UTC+1).
      { text: 'Backups', stage: 'POST_BIND', dueAt: '2026-12-31T22:59:59.999Z' },
    ]);
    const bad = readQuoteAnswer(option([{ text: 'MFA', stage: 'PRE_BIND', due_at: 'next week' }]), limits, rules);
    expect(bad.problems).toEqual([
      {
        pointer: '/quote_options/0/subjectivities/0/due_at',
        message:
          'must be an RFC 3339 timestamp with an offset or a date (YYYY-MM-DD, the end of that day in Europe/Berlin), got "next week"',
      },
    ]);
  });

  it('counts working days Monday to Friday in Europe/Berlin', () => {
    // Friday 10:00 Berlin + 2 → Tuesday 10:00; Saturday → from Monday's start, Wednesday 00:00.
    expect(afterWorkingDays(new Date('2026-01-02T09:00:00Z'), 2).toISOString()).toBe('2026-01-06T09:00:00.000Z');
    expect(afterWorkingDays(new Date('2026-01-03T09:00:00Z'), 2).toISOString()).toBe('2026-01-06T23:00:00.000Z');
  });
});

describe('overdue reminders on two instances', () => {
  const started: { gateway: Gateway; owner: boolean }[] = [];
  afterEach(async () => {
    for (const { gateway, owner } of started.splice(0).reverse()) await (owner ? gateway.close() : gateway.stop());
  });

  it('raises SUBJECTIVITY_OVERDUE and COVER_ORDER_OVERDUE once, whichever instance sweeps, as the clock moves', async () => {
    // Two instances on one database, each on its own clock showing the same time; they sweep one after the other (two
    // SQLite connections in one process would wait on each other's write lock), each finding what the other left.
    const start = Date.parse('2026-01-01T00:00:00.000Z'); // a Thursday
    const clocks = [new JumpingClock(start), new JumpingClock(start)];
    const env = { SUBJECTIVITY_SWEEP_MS: '60000', WEBHOOK_URL_ALLOW: '127.0.0.1' };
    const a = await startGateway({ clock: clocks[0], env, dispatch: false });
    started.push({ gateway: a, owner: true });
    const b = await startGateway({ clock: clocks[1], env, dispatch: false, dataDir: a.dataDir });
    started.push({ gateway: b, owner: false });
    const world: World = await createWorld(a.em());
    const broker = await tokenFor(a, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
    const insurer = await tokenFor(a, Role.INSURER, { insurerId: world.insurers[0].id });
    for (const [token, path, types] of [
      [broker, 'broker', ['subjectivity.overdue', 'cover_order.overdue']],
      [insurer, 'insurer', ['subjectivity.overdue', 'cover_order.overdue']],
    ] as const) {
      const response = await fetch(`${a.url}/integration/v1/webhook-endpoints`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `http://127.0.0.1:9/${path}`, event_types: types }),
      });
      expect(response.status).toBe(201);
    }
    const tender = await createTender(a.em(), world);
    const { option, ids } = await quoteWith(a, tender, world.insurers[0], [PRE('Signed application', '2026-01-01T12:00:00.000Z')]);
    const order = await graphql(a, broker, ORDER, { id: tender.id, option: option.id });
    expect(order.body.data.orderCover.status).toBe('IN_COVERNOTE');

    const count = async (type: string) => (await a.em().find(WebhookDelivery, { eventType: type as WebhookEventType })).length;
    const runs = () => [a, b].map((gateway) => gateway.app.tasks.counts('bind reminders sweep')?.runs ?? 0);
    /** Moves both clocks on; each instance sweeps at the new time. */
    const sweepAfter = async (ms: number) => {
      const before = runs();
      for (const clock of clocks) await clock.jump(ms);
      expect(runs()).toEqual(before.map((n) => n + 1));
    };
    await sweepAfter(60_000);
    expect([await count('subjectivity.overdue'), await count('cover_order.overdue')]).toEqual([0, 0]);
    // Past the due date: both instances sweep, the subjectivity is raised once (one delivery per party).
    await sweepAfter(13 * 3_600_000);
    expect(await count('subjectivity.overdue')).toBe(2);
    expect((await a.em().findOneOrFail(TrackedSubjectivity, { id: ids[0] })).overdueAt).toBeInstanceOf(Date);
    // Ordered on Thursday 01:00 Berlin: two working days later is Monday 01:00, not Saturday.
    await sweepAfter(2 * 86_400_000);
    expect(await count('cover_order.overdue')).toBe(0);
    await sweepAfter(2 * 86_400_000);
    expect(await count('cover_order.overdue')).toBe(2);
    await sweepAfter(86_400_000);
    expect([await count('subjectivity.overdue'), await count('cover_order.overdue')]).toEqual([2, 2]);
    const stored = await a.em().findOneOrFail(Tender, { id: tender.id });
    expect(stored.coverOrderOverdueAt).toBeInstanceOf(Date);
  });
});
