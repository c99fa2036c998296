import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import type { SimBehaviour } from '../src/insurer-sim/insurer-sim';
import type { Insurer } from '../src/insurers';
import { EarlyCallback, InsurerCheck, type InsurerCheckReport, QuoteRequest } from '../src/quotes';
import { Tender, TenderInvitation } from '../src/tenders';
import { cli as runCli, spawnCli } from './helpers/cli';
import { databaseUrlFor } from './helpers/database';
import { FAST_DISPATCH_ENV, TEST_JWT_SECRET, graphql, requestToken, startGateway, tokenFor, type Gateway } from './helpers/gateway';
import { withGateway } from './helpers/scene';
import { startHostileInsurers, type HostileInsurers } from './helpers/hostile-insurer';
import { startScriptedInsurer } from './helpers/scripted-insurer';
import { startSimulatedInsurers, waitFor, type SimulatedInsurers } from './helpers/simulator';

const CHECK = `mutation($insurerId: ID!, $waitMs: Int) {
  checkInsurer(insurerId: $insurerId, waitMs: $waitMs) {
    passed startedAt totalMs insurer { id name quoteApiUrl } steps { name passed skipped ms detail }
  } }`;
const CALLBACK = '/aggregation-gateway/v1/public/producer-integration/quotes/available';
const STEPS = [
  'acknowledgement',
  'callback',
  'quote',
  'valid-until',
  'currency',
  'decision',
  'subjectivities',
  'idempotency',
  'duplicate-callback',
];

/** One simulated insurer per scripted behaviour, named after it. */
const BEHAVIOURS: SimBehaviour[] = [
  'quote',
  'callback-twice',
  'early-callback',
  'silent',
  'fail',
  'timeout',
  'malformed',
  'malformed-quote',
  'decline',
  'quote-terms',
  'refer',
];

let sims: SimulatedInsurers;
let hostile: HostileInsurers;
let internal: string;
const insurer: Record<string, Insurer> = {};

const scene = withGateway({ per: 'file', world: true });

beforeAll(async () => {
  sims = scene.closes(
    await startSimulatedInsurers(
      scene.gateway,
      BEHAVIOURS.map((behaviour) => ({ name: `Sim ${behaviour}`, behaviour })),
    ),
  );
  BEHAVIOURS.forEach((behaviour, i) => (insurer[behaviour] = sims.insurers[i]));
  hostile = scene.closes(
    await startHostileInsurers(scene.gateway, {
      'wrong-id': 'wrong-id',
      'unrequested-option': 'unrequested-option',
      redirect: 'redirect',
      'nul-ack': 'nul-ack',
      hold: 'hold',
    }),
  );
  internal = await scene.token(Role.INTERNAL);
});

async function check(insurerId: string, waitMs?: number, token = internal): Promise<InsurerCheckReport> {
  const { body } = await graphql(scene.gateway, token, CHECK, { insurerId, waitMs });
  expect(body.errors).toBeUndefined();
  return body.data.checkInsurer;
}

const step = (report: InsurerCheckReport, name: string) => report.steps.find((s) => s.name === name)!;
/** The steps' outcomes in order: passed, failed or skipped. */
const outcomes = (report: InsurerCheckReport) =>
  report.steps.map((s) => `${s.name}: ${s.skipped ? 'skipped' : s.passed ? 'passed' : 'failed'}`);
const slugOf = (behaviour: SimBehaviour) => sims.slugs[BEHAVIOURS.indexOf(behaviour)];

/** A silent insurer's check: acknowledged, never called back, so nothing after the callback runs but idempotency. */
const SILENT_OUTCOMES = [
  'acknowledgement: passed',
  'callback: failed',
  'quote: skipped',
  'valid-until: skipped',
  'currency: skipped',
  'decision: skipped',
  'subjectivities: skipped',
  'idempotency: passed',
  'duplicate-callback: skipped',
];

describe('insurer onboarding check over GraphQL, against the simulator', () => {
  it('a well-behaved insurer passes every step, with timings, and the check leaves no tender, quote request or callback behind', async () => {
    const report = await check(insurer.quote.id);
    expect(report).toMatchObject({
      passed: true,
      insurer: { id: insurer.quote.id, name: 'Sim quote', quoteApiUrl: insurer.quote.quoteApiUrl },
    });
    expect(report.steps.map((s) => s.name)).toEqual(STEPS);
    expect(report.steps.every((s) => s.passed && !s.skipped && Number.isInteger(s.ms) && s.ms >= 0)).toBe(true);
    expect(report.totalMs).toBeGreaterThanOrEqual(report.steps.reduce((sum, s) => sum + s.ms, 0));
    expect(Date.parse(report.startedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(step(report, 'acknowledgement').detail).toMatch(
      /^answered \{"id": "Q-[\w-]+", "status": "PROCESSING"\} within the 1000 ms timeout$/,
    );
    expect(step(report, 'callback').detail).toMatch(/the gateway accepted \{"quote_request_id": "Q-[\w-]+"\} \(202\)/);
    expect(step(report, 'quote').detail).toMatch(
      /^2 option\(s\) for the 2 requested limits \(1000000\/1000: premium [\d.]+, 2000000\/5000: premium [\d.]+\)$/,
    );
    expect(step(report, 'idempotency').detail).toMatch(/answered with the same id "Q-[\w-]+"/);
    expect(step(report, 'duplicate-callback').detail).toMatch(/^not observed: the insurer called back once/);
    // A spec-only insurer passes the optional terms' steps: none sent.
    expect(step(report, 'valid-until').detail).toMatch(/^not sent \(optional: valid_until /);
    expect(step(report, 'subjectivities').detail).toMatch(/^not sent \(optional: subjectivities per option/);
    // One real exchange: two POSTs with one Idempotency-Key are one quote at the insurer, fetched once.
    expect(sims.simulator.stats(slugOf('quote'))).toMatchObject({ posts: 2, quotes: 1, callbacks: 1, callbackFailures: 0, fetches: 1 });

    const em = scene.gateway.em();
    expect(await em.count(Tender)).toBe(0);
    expect(await em.count(TenderInvitation)).toBe(0);
    expect(await em.count(QuoteRequest)).toBe(0);
    expect(await em.count(InsurerCheck)).toBe(0);
    expect(await em.count(EarlyCallback)).toBe(0);
  });

  it('an insurer that calls back twice passes: the gateway accepts the second callback and the quote fetched again is unchanged', async () => {
    const report = await check(insurer['callback-twice'].id);
    expect(report.passed).toBe(true);
    expect(step(report, 'duplicate-callback').detail).toBe(
      'the insurer called back 2 times; the gateway accepted each (202) and the quote fetched again is unchanged',
    );
    expect(sims.simulator.stats(slugOf('callback-twice'))).toMatchObject({ callbacks: 2, callbackFailures: 0, fetches: 2 });
  });

  it('an insurer that calls back before it acknowledges passes: the gateway parks the callback and the check finds it', async () => {
    const report = await check(insurer['early-callback'].id);
    expect(report.passed).toBe(true);
    expect(step(report, 'callback').detail).toMatch(/before the acknowledgement was stored/);
    expect(sims.simulator.stats(slugOf('early-callback'))).toMatchObject({ callbacks: 1, callbackFailures: 0 });
    expect(await scene.gateway.em().count(EarlyCallback)).toBe(0);
  });

  it('an insurer that never calls back fails the callback step after the wait, and its quote is not fetched', async () => {
    const report = await check(insurer.silent.id, 400);
    expect(report.passed).toBe(false);
    expect(outcomes(report)).toEqual(SILENT_OUTCOMES);
    expect(step(report, 'callback').detail).toMatch(
      /^no callback for "Q-[\w-]+" within 400 ms: the insurer system posts \{"quote_request_id": "Q-[\w-]+"\} to the gateway's callback URL/,
    );
    expect(step(report, 'callback').ms).toBeGreaterThanOrEqual(400);
    expect(step(report, 'quote').detail).toMatch(/^not run: no callback \(the gateway fetches a quote only after its callback/);
    expect(sims.simulator.stats(slugOf('silent')).fetches).toBe(0);
  });

  it("an integrator who sends the callback by hand passes the callback step; the same id with another insurer's token is a 404", async () => {
    const em = scene.gateway.em();
    const running = check(insurer.silent.id, 10_000);
    const row = await waitFor('the check to store its acknowledgement', async () => {
      em.clear();
      return (await em.findOne(InsurerCheck, { insurer: insurer.silent.id, insurerReference: { $ne: null } })) ?? undefined;
    });
    const post = (token: string) =>
      fetch(`${scene.gateway.url}${CALLBACK}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ quote_request_id: row.insurerReference }),
      });
    const other = await tokenFor(scene.gateway, Role.INSURER, { insurerId: insurer.quote.id });
    expect((await post(other)).status).toBe(404);
    const own = await tokenFor(scene.gateway, Role.INSURER, { insurerId: insurer.silent.id });
    const accepted = await post(own);
    expect(accepted.status).toBe(202);
    expect(await accepted.json()).toEqual({ status: 'accepted', quote_request_id: row.insurerReference });
    const report = await running;
    expect(report.passed).toBe(true);
    expect(step(report, 'callback').ms).toBeLessThan(10_000);
    // After the check, its id is unknown again.
    expect((await post(own)).status).toBe(404);
  });

  it('an insurer answering 503 fails the acknowledgement step with the status, and nothing further is sent', async () => {
    const report = await check(insurer.fail.id);
    expect(outcomes(report)).toEqual([
      'acknowledgement: failed',
      'callback: skipped',
      'quote: skipped',
      'valid-until: skipped',
      'currency: skipped',
      'decision: skipped',
      'subjectivities: skipped',
      'idempotency: skipped',
      'duplicate-callback: skipped',
    ]);
    expect(step(report, 'acknowledgement').detail).toMatch(/^insurer answered 503: answered 503: \{"error":"simulated outage"\}$/);
    expect(step(report, 'callback').detail).toBe('not run: no acknowledgement');
    expect(sims.simulator.stats(slugOf('fail')).posts).toBe(1);
  });

  it('an insurer that does not acknowledge within QUOTE_TIMEOUT_MS fails the acknowledgement step as timed out', async () => {
    const report = await check(insurer.timeout.id);
    expect(report.passed).toBe(false);
    expect(step(report, 'acknowledgement')).toMatchObject({ passed: false, detail: expect.stringMatching(/^insurer timed out: /) });
    expect(step(report, 'acknowledgement').ms).toBeGreaterThanOrEqual(900);
  });

  it('a malformed acknowledgement fails the acknowledgement step, naming what is wrong', async () => {
    const report = await check(insurer.malformed.id);
    expect(step(report, 'acknowledgement')).toMatchObject({
      passed: false,
      detail: 'insurer sent an invalid acknowledgement: malformed acknowledgement: id must be a string of 1 to 200 characters',
    });
  });

  it('a quote with unusable options fails the quote step; the acknowledgement and callback pass', async () => {
    const report = await check(insurer['malformed-quote'].id);
    expect(outcomes(report)).toEqual([
      'acknowledgement: passed',
      'callback: passed',
      'quote: failed',
      'valid-until: passed',
      'currency: passed',
      'decision: passed',
      'subjectivities: passed',
      'idempotency: passed',
      'duplicate-callback: skipped',
    ]);
    expect(step(report, 'quote').detail).toMatch(/^insurer sent an invalid quote: malformed quote: option 0: /);
  });

  it('an insurer that sends the optional terms passes a step for each, saying what it sent', async () => {
    const report = await check(insurer['quote-terms'].id);
    expect(report.passed).toBe(true);
    expect(step(report, 'valid-until').detail).toMatch(/^valid: valid until \d{4}-\d{2}-\d{2}T[\d:.]+Z \("\d{4}-/);
    expect(step(report, 'currency').detail).toBe('valid: currency EUR');
    expect(step(report, 'decision').detail).toBe('valid: decision "QUOTED"');
    expect(step(report, 'subjectivities').detail).toBe('valid: 4 subjectivities');
    expect(step(report, 'quote').detail).toMatch(/^4 option\(s\) for the 2 requested limits/);
  });

  it('a referral fails the quote step, saying the gateway would wait for a further callback; its decision and reason pass', async () => {
    const report = await check(insurer.refer.id);
    expect(step(report, 'quote').detail).toMatch(/^referred: a valid answer for a real tender \(the gateway waits for a further callback/);
    expect(step(report, 'decision')).toMatchObject({ passed: true, detail: 'valid: decision "REFERRED", with a reason' });
  });

  it('an invalid term fails its own step (and the quote, which the gateway would refuse); the other terms pass', async () => {
    const scripted = await startScriptedInsurer(scene.gateway, 'Scripted terms');
    try {
      const running = check(scripted.insurer.id, 5000);
      const id = await waitFor('the acknowledgement', async () => scripted.ids()[0]);
      expect(
        await scripted.quote(id, {
          currency: '€',
          valid_until: '2020-01-01',
          quote_options: [
            { insurance_sum: 1_000_000, deductible: 1_000, premium: 10 },
            { insurance_sum: 2_000_000, deductible: 5_000, premium: 20 },
          ],
        }),
      ).toBe(202);
      const report = await running;
      expect(outcomes(report)).toEqual([
        'acknowledgement: passed',
        'callback: passed',
        'quote: failed',
        'valid-until: failed',
        'currency: failed',
        'decision: passed',
        'subjectivities: passed',
        'idempotency: passed',
        'duplicate-callback: skipped',
      ]);
      expect(step(report, 'currency').detail).toBe('currency must be an ISO 4217 currency code such as EUR, got "€"');
      expect(step(report, 'valid-until').detail).toMatch(/^valid_until must not be before /);
      expect(step(report, 'decision').detail).toMatch(/^not sent/);
    } finally {
      await scripted.close();
    }
  });

  it('a decline fails the quote step: the check needs options for its limits', async () => {
    const report = await check(insurer.decline.id);
    expect(step(report, 'quote')).toMatchObject({ passed: false, detail: expect.stringMatching(/^declined: quote_options is empty/) });
  });
});

describe('insurer onboarding check against hostile insurer systems', () => {
  it('a quote for another id fails the quote step', async () => {
    const report = await check(hostile.insurers['wrong-id'].id);
    expect(step(report, 'quote')).toMatchObject({
      passed: false,
      detail: expect.stringMatching(/malformed quote: id "HX-[\w-]+-someone-else" does not match the requested HX-/),
    });
  });

  it('options for limits nobody asked for are reported as dropped, and the check still passes', async () => {
    const report = await check(hostile.insurers['unrequested-option'].id);
    expect(report.passed).toBe(true);
    expect(step(report, 'quote').detail).toMatch(
      /dropped 1 option\(s\) for limits that were not requested: 123\/0 \(the gateway drops those\)$/,
    );
  });

  it('an insurer that answers a repeated request with a new id passes the idempotency step, told that the same id is expected', async () => {
    const running = check(hostile.insurers.hold.id, 5000);
    await hostile.held('hold');
    hostile.release('hold', 'FIRST-ID');
    const em = scene.gateway.em();
    await waitFor('the check to store its acknowledgement', async () => {
      em.clear();
      return (await em.count(InsurerCheck, { insurer: hostile.insurers.hold.id, insurerReference: 'FIRST-ID' })) > 0;
    });
    const token = await requestToken(scene.gateway, hostile.credentials.hold);
    const callback = await fetch(`${scene.gateway.url}${CALLBACK}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ quote_request_id: 'FIRST-ID' }),
    });
    expect(callback.status).toBe(202);
    await hostile.held('hold'); // the repeated POST
    hostile.release('hold', 'SECOND-ID');
    const report = await running;
    expect(step(report, 'idempotency')).toMatchObject({
      passed: true,
      detail: expect.stringMatching(
        /^the same request with the same Idempotency-Key was answered with a new id "SECOND-ID" \(first "FIRST-ID"\): harmless to the gateway, .* answer the same id for the same key$/,
      ),
    });
    expect(hostile.stats('hold').posts).toBe(2);
  });

  it('a redirect and an id with a NUL byte fail the acknowledgement step', async () => {
    expect(step(await check(hostile.insurers.redirect.id), 'acknowledgement').detail).toMatch(
      /^insurer answered 302: redirect to .* not followed$/,
    );
    expect(step(await check(hostile.insurers['nul-ack'].id), 'acknowledgement').detail).toMatch(
      /^insurer sent an invalid acknowledgement: .*control characters$/,
    );
  });
});

describe('checkInsurer over GraphQL: who and what', () => {
  it('is for internal users: brokers, insurers and analysts get FORBIDDEN and nothing is sent', async () => {
    const before = sims.simulator.stats(slugOf('quote')).posts;
    const tokens = [
      await tokenFor(scene.gateway, Role.BROKER, { brokerCompanyId: scene.world.brokers[0].id }),
      await tokenFor(scene.gateway, Role.INSURER, { insurerId: insurer.quote.id }),
      await tokenFor(scene.gateway, Role.ANALYST),
    ];
    for (const token of tokens) {
      const { status, body } = await graphql(scene.gateway, token, CHECK, { insurerId: insurer.quote.id });
      expect({ status, code: body.errors?.[0]?.extensions?.code }).toEqual({ status: 403, code: 'FORBIDDEN' });
    }
    expect(sims.simulator.stats(slugOf('quote')).posts).toBe(before);
  });

  it('an unknown insurer is NOT_FOUND; a wait that would outlast the request timeout is BAD_USER_INPUT naming waitMs', async () => {
    const unknown = await graphql(scene.gateway, internal, CHECK, { insurerId: 'no-such-insurer' });
    expect(unknown.body.errors[0].extensions.code).toBe('NOT_FOUND');
    // REQUEST_TIMEOUT_MS 30 s less four calls of QUOTE_TIMEOUT_MS 1 s and a second to spare.
    const tooLong = await graphql(scene.gateway, internal, CHECK, { insurerId: insurer.quote.id, waitMs: 25_001 });
    expect(tooLong.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      errors: [{ parameter: 'waitMs', message: 'must be a whole number of ms from 1 to 25000' }],
    });
  });
});

describe('insurer:check on the command line', () => {
  /** The CLI's environment on the test gateway's database, with the test's short timeouts. */
  async function cliEnv() {
    return {
      ...FAST_DISPATCH_ENV,
      DATA_DIR: scene.gateway.dataDir,
      DATABASE_URL: await databaseUrlFor(scene.gateway.dataDir),
      JWT_SECRET: TEST_JWT_SECRET,
    };
  }

  /** `npm run cli -- insurer:check ...`, in the test process (the program main.ts runs). */
  async function cli(...args: string[]) {
    return runCli(await cliEnv(), 'insurer:check', ...args);
  }

  it('prints one line per step and exits 0 for a good insurer named by its name', async () => {
    // Its own process, as an operator runs it: the exit code and output end to end.
    const result = await spawnCli(await cliEnv(), 'insurer:check', 'Sim quote', '--gateway-url', scene.gateway.url);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe(
      `Onboarding check of Sim quote (${insurer.quote.id}) at ${insurer.quote.quoteApiUrl}, started ${lines[0].split('started ')[1]}`,
    );
    expect(lines.slice(1, 1 + STEPS.length).map((line) => line.trim().split(/\s+/).slice(0, 2).join(' '))).toEqual(
      STEPS.map((name) => `✔ ${name}`),
    );
    expect(lines[1]).toMatch(/^ {2}✔ acknowledgement +\d+ ms {2}answered \{"id": "Q-/);
    expect(lines[1 + STEPS.length]).toMatch(/^PASSED in \d+ ms$/);
  });

  it('--json prints the report, and a silent insurer fails the callback step with exit code 1', async () => {
    const result = await cli(insurer.silent.id, '--json', '--wait-ms', '300', '--gateway-url', scene.gateway.url);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as InsurerCheckReport;
    expect(report).toMatchObject({ passed: false, insurer: { id: insurer.silent.id, name: 'Sim silent' } });
    expect(outcomes(report)).toEqual(SILENT_OUTCOMES);
    expect(step(report, 'callback').detail).toMatch(/within 300 ms/);
  });

  it('with no gateway answering, the callback step fails at once, saying a running gateway is needed', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await cli('Sim quote', '--gateway-url', `http://127.0.0.1:${port}`);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      new RegExp(
        `✘ callback +\\d+ ms {2}no gateway answers at http://127.0.0.1:${port} \\(ECONNREFUSED\\): the insurer system calls back to a running gateway`,
      ),
    );
    expect(result.stdout).toMatch(
      /FAILED in \d+ ms: callback, quote, valid-until, currency, decision, subjectivities, duplicate-callback$/m,
    );
  });

  it('an unknown insurer or a bad --wait-ms is a usage error with exit code 2', async () => {
    const unknown = await cli('No Such Insurer', '--gateway-url', scene.gateway.url);
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toMatch(/NOT_FOUND: No insurer has the id or name "No Such Insurer"/);
    const badWait = await cli('Sim quote', '--wait-ms', 'soon');
    expect(badWait.code).toBe(2);
    expect(badWait.stderr).toMatch(/option '--wait-ms <ms>' argument 'soon' is invalid/);
    expect((await cli()).code).toBe(2);
  });
});

describe('checkInsurer within its request', () => {
  let bounded: Gateway;
  let silent: SimulatedInsurers;
  let token: string;
  const REQUEST_TIMEOUT_MS = 600;

  beforeAll(async () => {
    // The request ends long before the check's callback wait (1 s): the 503 of REQUEST_TIMEOUT_MS answers it.
    bounded = await startGateway({ env: { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) } });
    silent = await startSimulatedInsurers(bounded, [{ name: 'Sim silent', behaviour: 'silent' }]);
    token = await tokenFor(bounded, Role.INTERNAL);
  });

  afterAll(async () => {
    await silent?.close();
    await bounded?.close();
  });

  it('two checkInsurer in one operation are refused before either runs: 400, and the insurer hears nothing', async () => {
    const id = silent.insurers[0].id;
    const { status, body } = await graphql(
      bounded,
      token,
      `mutation { a: checkInsurer(insurerId: "${id}", waitMs: 1000) { passed } b: checkInsurer(insurerId: "${id}", waitMs: 1000) { passed } }`,
    );
    expect(status).toBe(400);
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(body.errors[0].message).toBe('An operation may run checkInsurer once; send each check in an operation of its own');
    expect(silent.simulator.stats(silent.slugs[0]).posts).toBe(0);
  });

  it('a check whose request timed out calls the insurer no more: after the 503, no repeated delivery reaches it', async () => {
    const started = Date.now();
    const { status } = await graphql(bounded, token, CHECK, { insurerId: silent.insurers[0].id, waitMs: 1000 });
    expect(status).toBe(503);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(silent.simulator.stats(silent.slugs[0]).posts).toBe(1);
    // The check would have sent its idempotency step's POST when its 1 s wait ran out; well past it, none came.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(silent.simulator.stats(silent.slugs[0]).posts).toBe(1);
    expect(await bounded.em().count(InsurerCheck, {})).toBe(0);
  });
});
