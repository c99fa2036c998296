import { afterEach, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { Tender } from '../src/tenders';
import { WebhookDelivery, type WebhookEventType } from '../src/webhooks';
import { createTender, createWorld, receivedQuote, type World } from './helpers/fixtures';
import { graphql, startGateway, tokenFor, type Gateway } from './helpers/gateway';
import { cyberAnswers, cyberQuestionSet } from './helpers/question-sets';
import { JumpingClock } from './helpers/jumping-clock';
import { mailTestEnv, startSmtpSink } from './helpers/smtp-sink';
import { waitFor } from './helpers/simulator';

/** Issue 42: renewals on the notice deadline, over HTTP, with the gateway's clock moved (no sleeping for dates). */

const ORDER = 'mutation($id: ID!, $option: ID!) { orderCover(tenderId: $id, quoteOptionId: $option) { status } }';
const FINALISE = `mutation($id: ID!, $period: PolicyPeriodInput) { finaliseContract(tenderId: $id, policyPeriod: $period) {
  status policyDocumentation { period { start end } } } }`;
const TERMS = `mutation($id: ID!, $type: RenewalType!, $months: Int!) { setRenewalTerms(tenderId: $id, type: $type, noticePeriodMonths: $months) {
  id renewal { type noticePeriodMonths noticeDeadline } } }`;
const RENEWALS = `query($before: DateTimeISO!, $status: RenewalStatus) { renewals(dueBefore: $before, status: $status) {
  status noticeDeadline periodEnd expiringPremium decision renewedBy incumbentInsurer { id } tender { id renewal { noticeDeadline } } } }`;
const RENEW = 'mutation($id: ID!) { renewTender(tenderId: $id) { id status renewalOf renewedBy } }';
const DECIDE = `mutation($id: ID!, $decision: RenewalDecision!, $reason: String!) {
  recordRenewalDecision(tenderId: $id, decision: $decision, reason: $reason) { decision decisionReason } }`;
const NOTIFY = 'mutation($id: ID!, $reason: String!) { notifyNonRenewal(tenderId: $id, reason: $reason) { status nonRenewalNotifiedAt } }';
const REQUEST = 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }';
const SAVE = `mutation($id: ID!, $answers: JSONObject!, $version: Int!, $confirm: [String!], $submit: Boolean) {
  saveRiskAnswers(tenderId: $id, answers: $answers, expectedVersion: $version, confirm: $confirm, submit: $submit) { version sources { pointer source } } }`;
const PROPOSAL = `query($id: ID!) { proposal(tenderId: $id) { tenderId renewal { renewalOf expiringPremium incumbentInsurer { id }
  premiumChanges { quoteOptionId change changeRatio } } } }`;
const PUBLISH = 'mutation($input: PublishQuestionSetInput!) { publishQuestionSet(input: $input) { questionSet { version } } }';

const codeOf = (body: { errors?: { extensions?: { code?: string } }[] }) => body.errors?.[0]?.extensions?.code;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// 1 June 2026, 12:00 in Berlin.
const START = Date.parse('2026-06-01T10:00:00.000Z');

describe('renewals', () => {
  const started: { gateway: Gateway; owner: boolean; clock: JumpingClock }[] = [];
  const closing: { close(): unknown }[] = [];
  afterEach(async () => {
    for (const { gateway, owner } of started.splice(0).reverse()) await (owner ? gateway.close() : gateway.stop());
    for (const thing of closing.splice(0)) await thing.close();
  });

  /** Two instances on one database, each on its own clock at START; a broker, its rival, the insurers, internal. */
  async function twoInstances(env: Record<string, string> = {}) {
    const smtp = await startSmtpSink();
    closing.push(smtp);
    const all = { RENEWAL_SWEEP_MS: String(HOUR), WEBHOOK_URL_ALLOW: '127.0.0.1', ...mailTestEnv(2), SMTP_URL: smtp.url, ...env };
    const clocks = [new JumpingClock(START), new JumpingClock(START)];
    const a = await startGateway({ clock: clocks[0], env: all, dispatch: false });
    started.push({ gateway: a, owner: true, clock: clocks[0] });
    // Mail is sent (by A's outbox worker); webhooks stay recorded, their endpoints being unreachable.
    a.app.mail!.start();
    const b = await startGateway({ clock: clocks[1], env: all, dispatch: false, dataDir: a.dataDir });
    started.push({ gateway: b, owner: false, clock: clocks[1] });
    const world: World = await createWorld(a.em());
    const tokens = {
      broker: await tokenFor(a, Role.BROKER, { brokerCompanyId: world.brokers[0].id }),
      otherBroker: await tokenFor(a, Role.BROKER, { brokerCompanyId: world.brokers[1].id }),
      insurer: await tokenFor(a, Role.INSURER, { insurerId: world.insurers[0].id }),
      otherInsurer: await tokenFor(a, Role.INSURER, { insurerId: world.insurers[1].id }),
      internal: await tokenFor(a, Role.INTERNAL),
    };
    const run = async (token: string, query: string, variables: Record<string, unknown> = {}, on: Gateway = a) =>
      (await graphql(on, token, query, variables)).body;
    /** Moves both clocks on; each instance sweeps at the new time. */
    const sweepAfter = async (ms: number) => {
      for (const clock of clocks) await clock.jump(ms);
    };
    /** A SUCCESSFUL tender of broker 0, won by insurer 0 at `premium`, its policy period ending on `end`. */
    async function contract(end: string, premium = 1000, answers?: Record<string, unknown>) {
      const tender = await createTender(a.em(), world);
      if (answers) expect((await run(tokens.broker, SAVE, { id: tender.id, answers, version: 0 })).data.saveRiskAnswers.version).toBe(1);
      const option = await receivedQuote(a.em(), tender, world.insurers[0], premium);
      expect((await run(tokens.broker, ORDER, { id: tender.id, option: option.id })).data.orderCover.status).toBe('IN_COVERNOTE');
      const finalised = await run(tokens.insurer, FINALISE, { id: tender.id, period: { start: '2025-09-03', end } });
      expect(finalised.data.finaliseContract.status).toBe('SUCCESSFUL');
      return tender;
    }
    return { a, b, world, tokens, run, sweepAfter, contract, smtp };
  }

  it('raises RENEWAL_DUE, NOTICE_DEADLINE_APPROACHING and NOTICE_DEADLINE_PASSED once each on two instances, by webhook and mail', async () => {
    const { a, tokens, run, sweepAfter, contract, smtp } = await twoInstances();
    for (const [token, types] of [
      [tokens.broker, ['renewal.due', 'notice_deadline.approaching', 'notice_deadline.passed']],
      [tokens.insurer, ['policy.non_renewal_notified']],
    ] as const) {
      const response = await fetch(`${a.url}/integration/v1/webhook-endpoints`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'http://127.0.0.1:9/hook', event_types: types }),
      });
      expect(response.status).toBe(201);
    }
    // Last day 2 September, three months: cover ends on 3 September, notice by the end of 2 June (tomorrow) in Berlin.
    const tender = await contract('2026-09-02');
    const set = await run(tokens.broker, TERMS, { id: tender.id, type: 'TACIT', months: 3 });
    expect(set.data.setRenewalTerms.renewal).toEqual({ type: 'TACIT', noticePeriodMonths: 3, noticeDeadline: '2026-06-02T21:59:59.999Z' });

    const count = async (type: string) => (await a.em().find(WebhookDelivery, { eventType: type as WebhookEventType })).length;
    const counts = async () => [
      await count('renewal.due'),
      await count('notice_deadline.approaching'),
      await count('notice_deadline.passed'),
    ];
    /** The renewal mails the SMTP server accepted: to whom, the subject, the deadline's sentence. */
    const mails = () =>
      smtp
        .accepted()
        .filter((mail) => /Verlängerung|Kündigungsfrist/.test(mail.subject ?? ''))
        .map((mail) => [
          (Array.isArray(mail.to) ? mail.to[0] : mail.to)!.value[0].address,
          mail.subject,
          /Die Kündigungsfrist [^\n]*/.exec(mail.text ?? '')?.[0],
        ]);

    // Both instances sweep: the deadline is tomorrow, so the renewal is due and the deadline approaching, each once.
    await sweepAfter(HOUR);
    expect(await counts()).toEqual([1, 1, 0]);
    await sweepAfter(HOUR);
    expect(await counts()).toEqual([1, 1, 0]);
    // Past the deadline (the end of 2 June in Berlin): passed, once.
    await sweepAfter(DAY + 10 * HOUR);
    expect(await counts()).toEqual([1, 1, 1]);
    await sweepAfter(DAY);
    expect(await counts()).toEqual([1, 1, 1]);
    const person = (await a.em().findOneOrFail(Tender, { id: tender.id }, { populate: ['personInCharge'] })).personInCharge.email;
    await waitFor('the three renewal mails', async () => mails().length >= 3);
    // In German, the person's language; the first two were raised together, so they may go out in either order.
    const product = tender.product;
    const byText = (rows: unknown[][]) => rows.map((row) => row.join(' | ')).sort();
    expect(byText(mails())).toEqual(
      byText([
        [person, `Verlängerung steht an: ${product}`, 'Die Kündigungsfrist endet am 2026-06-02 (Ende des Tages, Europe/Berlin).'],
        [person, `Kündigungsfrist endet bald: ${product}`, 'Die Kündigungsfrist endet am 2026-06-02 (Ende des Tages, Europe/Berlin).'],
        [person, `Kündigungsfrist abgelaufen: ${product}`, 'Die Kündigungsfrist endete am 2026-06-02 (Ende des Tages, Europe/Berlin).'],
      ]),
    );
    // Notice after the deadline is refused, naming it.
    const late = await run(tokens.broker, NOTIFY, { id: tender.id, reason: 'Too late' });
    expect(codeOf(late)).toBe('CONFLICT');
    expect(late.errors[0].message).toContain('2026-06-02T21:59:59.999Z');

    // The tacit renewal passes when cover would have ended (3 September): the next year's period and deadline follow,
    // and a reader holding the tender's ETag from before gets the new deadline, not a 304.
    const before = await fetch(`${a.url}/api/v1/tenders/${tender.id}`, { headers: { authorization: `Bearer ${tokens.broker}` } });
    const etag = before.headers.get('etag')!;
    expect(etag).toBeTruthy();
    await sweepAfter(93 * DAY);
    const after = await fetch(`${a.url}/api/v1/tenders/${tender.id}`, {
      headers: { authorization: `Bearer ${tokens.broker}`, 'if-none-match': etag },
    });
    expect(after.status).toBe(200);
    expect(((await after.json()) as { renewal: unknown }).renewal).toEqual({
      type: 'TACIT',
      notice_period_months: 3,
      notice_deadline: '2027-06-02T21:59:59.999Z',
    });
    const renewed = await run(tokens.broker, RENEWALS, { before: '2028-01-01T00:00:00.000Z' });
    expect(renewed.data.renewals).toHaveLength(1);
    expect(renewed.data.renewals[0]).toMatchObject({
      status: 'OPEN',
      periodEnd: '2027-09-02',
      noticeDeadline: '2027-06-02T21:59:59.999Z',
      tender: { id: tender.id, renewal: { noticeDeadline: '2027-06-02T21:59:59.999Z' } },
    });
    // And its reminders come again, once each, for the new deadline: 11 days before it, then after it.
    await sweepAfter(260 * DAY);
    expect(await counts()).toEqual([2, 2, 1]);
    await sweepAfter(20 * DAY);
    expect(await counts()).toEqual([2, 2, 2]);
  });

  it('shows the terms in REST and GraphQL, lists what is due to the broker and internal users only, and takes notice before the deadline', async () => {
    const { a, world, tokens, run, contract, sweepAfter } = await twoInstances();
    const tender = await contract('2026-12-31');
    // The insurer of the contract sets the terms; another insurer may not.
    expect(codeOf(await run(tokens.otherInsurer, TERMS, { id: tender.id, type: 'EXPIRING', months: 1 }))).toMatch(/NOT_FOUND|FORBIDDEN/);
    expect(codeOf(await run(tokens.broker, TERMS, { id: tender.id, type: 'TACIT', months: 4 }))).toBe('BAD_USER_INPUT');
    const set = await run(tokens.insurer, TERMS, { id: tender.id, type: 'TACIT', months: 3 });
    expect(set.data.setRenewalTerms.renewal.noticeDeadline).toBe('2026-09-30T21:59:59.999Z');

    const rest = async (path: string, token = tokens.broker) =>
      fetch(`${a.url}${path}`, { headers: { authorization: `Bearer ${token}` } }).then(async (response) => ({
        status: response.status,
        body: (await response.json()) as Record<string, unknown> & { payload: Record<string, unknown>[] },
      }));
    const item = await rest(`/api/v1/tenders/${tender.id}`);
    expect(item.body.renewal).toEqual({ type: 'TACIT', notice_period_months: 3, notice_deadline: '2026-09-30T21:59:59.999Z' });
    expect(item.body.renewal_of).toBeNull();

    const due = await rest('/api/v1/renewals?due_before=2026-10-01T00:00:00Z');
    expect(due.status).toBe(200);
    expect(due.body.payload.map((each) => each._id)).toEqual([tender.id]);
    expect((await rest('/api/v1/renewals?due_before=2026-09-01T00:00:00Z')).body.payload).toEqual([]);
    expect((await rest('/api/v1/renewals?due_before=2026-10-01T00:00:00Z&status=NOTICE_GIVEN')).body.payload).toEqual([]);
    expect((await rest('/api/v1/renewals?due_before=2026-10-01T00:00:00Z&soon=1')).status).toBe(400);
    expect((await rest('/api/v1/renewals')).status).toBe(400);
    expect((await rest('/api/v1/renewals?due_before=tomorrow')).status).toBe(400);
    // Privacy: another broker company sees nothing, an insurer may not ask.
    expect((await rest('/api/v1/renewals?due_before=2026-10-01T00:00:00Z', tokens.otherBroker)).body.payload).toEqual([]);
    expect((await run(tokens.otherBroker, RENEWALS, { before: '2027-01-01T00:00:00Z' })).data.renewals).toEqual([]);
    expect(codeOf(await run(tokens.insurer, RENEWALS, { before: '2027-01-01T00:00:00Z' }))).toBe('FORBIDDEN');
    const internal = await run(tokens.internal, RENEWALS, { before: '2027-01-01T00:00:00Z' });
    expect(internal.data.renewals[0]).toMatchObject({
      status: 'OPEN',
      expiringPremium: 1000,
      incumbentInsurer: { id: world.insurers[0].id },
    });

    // The decision is the broker's; notice before the deadline is recorded, the incumbent told by ids only.
    expect(codeOf(await run(tokens.insurer, DECIDE, { id: tender.id, decision: 'MOVE', reason: 'x' }))).toBe('FORBIDDEN');
    await sweepAfter(HOUR);
    const decided = await run(tokens.broker, DECIDE, { id: tender.id, decision: 'MOVE', reason: 'Better terms elsewhere' });
    expect(decided.data.recordRenewalDecision).toEqual({ decision: 'MOVE', decisionReason: 'Better terms elsewhere' });
    const endpoint = await fetch(`${a.url}/integration/v1/webhook-endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.insurer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/hook', event_types: ['policy.non_renewal_notified'] }),
    });
    expect(endpoint.status).toBe(201);
    await sweepAfter(HOUR);
    const notified = await run(tokens.broker, NOTIFY, { id: tender.id, reason: 'Moving to another insurer' });
    expect(notified.data.notifyNonRenewal.status).toBe('NOTICE_GIVEN');
    expect(codeOf(await run(tokens.broker, NOTIFY, { id: tender.id, reason: 'Again' }))).toBe('CONFLICT');
    const events = await a.em().find(WebhookDelivery, { eventType: 'policy.non_renewal_notified' as WebhookEventType });
    expect(events.map((event) => JSON.parse(event.payload).data)).toEqual([{ tender_id: tender.id, status: 'SUCCESSFUL' }]);
    expect((await rest('/api/v1/renewals?due_before=2026-10-01T00:00:00Z&status=NOTICE_GIVEN')).body.payload).toHaveLength(1);
    // The decision and the notice's reason reach no insurer: the tender it reads carries neither.
    const seen = JSON.stringify(await rest(`/public/v1/tenders/${tender.id}`, tokens.insurer));
    expect(seen).not.toContain('Better terms');
    expect(seen).not.toContain('Moving to another');

    // The history: the broker reads each renewal step with its reason; the incumbent the terms and that notice was
    // given, without the reason, and not the decision.
    const HISTORY = 'query($id: ID!) { tender(id: $id) { history { step reason actorRole } } }';
    const steps = async (token: string) =>
      ((await run(token, HISTORY, { id: tender.id })).data.tender.history as { step: string | null; reason: string | null }[])
        .filter((entry) => entry.step)
        .map((entry) => [entry.step, entry.reason]);
    expect(await steps(tokens.broker)).toEqual([
      ['RENEWAL_TERMS_SET', "TACIT, 3 months' notice, by the end of 2026-09-30"],
      ['RENEWAL_DECIDED', 'MOVE: Better terms elsewhere'],
      ['NON_RENEWAL_NOTIFIED', 'Moving to another insurer'],
    ]);
    expect(await steps(tokens.insurer)).toEqual([
      ['RENEWAL_TERMS_SET', "TACIT, 3 months' notice, by the end of 2026-09-30"],
      ['NON_RENEWAL_NOTIFIED', null],
    ]);
  });

  it('renews a tender with last year’s answers carried over, refused for quotes until confirmed, its premium change shown to the broker only', async () => {
    const { a, world, tokens, run, contract } = await twoInstances();
    const published = await run(tokens.internal, PUBLISH, {
      input: { product: 'Cyber Protect', lineOfBusinessId: world.lines.cyber.id, schema: cyberQuestionSet() },
    });
    expect(published.data.publishQuestionSet.questionSet.version).toBe(1);
    const tender = await contract('2026-12-31', 1000, cyberAnswers());

    const renewed = await run(tokens.broker, RENEW, { id: tender.id });
    const next = renewed.data?.renewTender;
    expect(next).toMatchObject({ status: 'QUOTES_AVAILABLE', renewalOf: tender.id, renewedBy: null });
    expect((await a.em().findOneOrFail(Tender, { id: tender.id })).renewedBy).toBe(next.id);
    expect(codeOf(await run(tokens.broker, RENEW, { id: tender.id }))).toBe('CONFLICT');
    expect(codeOf(await run(tokens.insurer, RENEW, { id: tender.id }))).toBe('FORBIDDEN');

    const refused = await run(tokens.broker, REQUEST, {
      input: { tenderId: next.id, insurerIds: [world.insurers[1].id], limits: [{ insuranceSum: 1_000_000, deductible: 0 }] },
    });
    expect(codeOf(refused)).toBe('ANSWERS_UNCONFIRMED');
    const pointers = (refused.errors[0].extensions.problems as { pointer: string }[]).map((problem) => problem.pointer);
    expect(pointers).toContain('/employees');
    expect(pointers).toContain('/turnover');

    // The broker changes one answer and confirms the rest: the sources say who.
    const answers = { ...cyberAnswers(), employees: 45 };
    const confirm = pointers.filter((pointer) => pointer !== '/employees');
    const partly = await run(tokens.broker, SAVE, { id: next.id, answers, version: 1, confirm: confirm.slice(1) });
    expect(
      partly.data.saveRiskAnswers.sources
        .filter((s: { source: string }) => s.source === 'CARRIED_OVER')
        .map((s: { pointer: string }) => s.pointer),
    ).toEqual([confirm[0]]);
    expect(
      codeOf(
        await run(tokens.broker, REQUEST, {
          input: { tenderId: next.id, insurerIds: [world.insurers[1].id], limits: [{ insuranceSum: 1_000_000, deductible: 0 }] },
        }),
      ),
    ).toBe('ANSWERS_UNCONFIRMED');
    const all = await run(tokens.broker, SAVE, { id: next.id, answers, version: 2, confirm: [confirm[0]], submit: true });
    expect(all.data.saveRiskAnswers.sources.every((s: { source: string }) => s.source === 'BROKER')).toBe(true);

    // Quotes on the renewal: the broker sees each option's change against the expiring premium; insurers never.
    const renewal = await a.em().findOneOrFail(Tender, { id: next.id });
    const option = await receivedQuote(a.em(), renewal, world.insurers[1], 1100);
    const broker = await run(tokens.broker, PROPOSAL, { id: next.id });
    expect(broker.data.proposal.renewal).toEqual({
      renewalOf: tender.id,
      expiringPremium: 1000,
      incumbentInsurer: { id: world.insurers[0].id },
      premiumChanges: [{ quoteOptionId: option.id, change: 100, changeRatio: 0.1 }],
    });
    const insurer = await run(tokens.otherInsurer, PROPOSAL, { id: next.id });
    expect(insurer.data.proposal.renewal).toBeNull();
    expect(JSON.stringify(insurer)).not.toContain('1000');
  });

  it('reads what is due through the notice deadline indexes, not a scan of every tender', async () => {
    const { a } = await twoInstances();
    const em = a.em();
    const engine = em.getPlatform().constructor.name.toLowerCase().includes('postgre') ? 'postgresql' : 'sqlite';
    // The statements of `renewals`: a broker's (its company first) and an internal user's (every company).
    const statements = [
      [
        `select id from tender where broker_company_id = 'b' and notice_deadline <= ? order by notice_deadline, id limit 100`,
        'tender_broker_notice_deadline_idx',
      ],
      [`select id from tender where notice_deadline <= ? order by notice_deadline, id limit 100`, 'tender_notice_deadline_idx'],
      [`select id from tender where renewal_sweep_at <= ? order by renewal_sweep_at, id limit 200`, 'tender_renewal_sweep_at_idx'],
    ] as const;
    for (const [sql, index] of statements) {
      const plan = await em.transactional(async (tx) => {
        const connection = tx.getConnection();
        if (engine === 'postgresql') {
          // A test database holds a handful of rows: a sequential scan would be cheaper there, so it is ruled out.
          await connection.execute('set local enable_seqscan = off', [], 'run', tx.getTransactionContext());
          const rows = await connection.execute(`explain ${sql.replace('?', "'2030-01-01'")}`, [], 'all', tx.getTransactionContext());
          return JSON.stringify(rows);
        }
        return JSON.stringify(
          await connection.execute(`explain query plan ${sql}`, [Date.parse('2030-01-01')], 'all', tx.getTransactionContext()),
        );
      });
      expect(plan).toContain(index);
    }
  });
});
