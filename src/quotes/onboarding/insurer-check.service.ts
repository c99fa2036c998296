import { performance } from 'node:perf_hooks';
import { raw, type EntityManager } from '@mikro-orm/core';
import { Insurer, InsurerIntegration } from '../../insurers';
import type { QuoteDispatchConfig } from '../../platform/config';
import { newId } from '../../platform/db/ids';
import { badInput, notFound } from '../../platform/errors/domain-error';
import { abortReasonOf } from '../../platform/errors/normalize';
import { LIMITS } from '../../platform/validation/rules';
import { EarlyCallback } from '../callback/early-callback.entity';
import { InsurerCheck } from './insurer-check.entity';
import { InsurerClient, PartnerError } from '../dispatch/insurer-client';
import { parseAcknowledgement, parseQuote } from '../dispatch/insurer-payloads';
import { parseValidUntil, readQuoteAnswer, type KeptOption } from '../quote-answer';
import { QuoteDecision } from '../quote-request-status';

/** What a valid term says, for the report. */
function describeTerm(body: Record<string, unknown>, term: TermStep, zone: string): string {
  if (term === 'valid-until')
    return `valid until ${parseValidUntil(body.valid_until, zone)!.toISOString()} (${JSON.stringify(body.valid_until)})`;
  if (term === 'currency') return `currency ${String(body.currency)}`;
  if (term === 'decision') return `decision ${JSON.stringify(body.decision ?? null)}${body.reason ? ', with a reason' : ''}`;
  const count = (body.quote_options as { subjectivities?: unknown[] | null }[]).reduce(
    (sum, option) => sum + (Array.isArray(option?.subjectivities) ? option.subjectivities.length : 0),
    0,
  );
  return `${count} subjectivities`;
}
import { QuoteRequest, type Limit } from '../quote-request.entity';

/**
 * The onboarding check (docs/quotation.md, "Onboarding check"): one real quote exchange with a registered
 * insurer system on a synthetic request that belongs to no tender, so nobody sees it. It goes through the same
 * insurer client (deadline, byte cap, URL allow-list) and the same payload checks as the dispatcher; the
 * insurer's callback reaches the gateway's callback route with the insurer's own token, where the check's row
 * (`InsurerCheck`) makes its id known.
 */

/** The limits the check asks a quote for. */
const CHECK_LIMITS: readonly Limit[] = [
  { insurance_sum: 1_000_000, deductible: 1_000 },
  { insurance_sum: 2_000_000, deductible: 5_000 },
];

/** Spec 2.3 risk information, plainly test data. */
const CHECK_RISK_INFORMATION = {
  turnover: { amount: 1_000_000, currency: 'EUR' },
  type_of_business: 'Onboarding check (test data, not a real risk)',
  website_url: 'https://onboarding-check.example',
  customer_name: 'Onboarding check',
} as const;

/** How long the check waits for the callback unless told otherwise, ms. */
const DEFAULT_CHECK_WAIT_MS = 30_000;
/** How often the check looks for the callback, ms. */
const POLL_MS = 50;
/** A repeated callback is looked for until this long after the first was seen (and the steps between), ms. */
const REPEAT_WAIT_MS = 500;
/** Insurer calls one check makes at most, each bounded by QUOTE_TIMEOUT_MS: two POSTs and two GETs. */
const CALLS = 4;

/** The optional terms of spec 2.5 (docs/quotation.md, "Quote terms"), each a step of its own. */
const TERM_STEPS = ['valid-until', 'currency', 'decision', 'subjectivities'] as const;
type TermStep = (typeof TERM_STEPS)[number];

type CheckStepName = 'acknowledgement' | 'callback' | 'quote' | TermStep | 'idempotency' | 'duplicate-callback';

/** Which term a problem of an answer is about (its JSON pointer). */
function termOf(pointer: string): TermStep | undefined {
  if (pointer === '/valid_until') return 'valid-until';
  if (pointer === '/currency') return 'currency';
  if (pointer === '/decision' || pointer === '/reason') return 'decision';
  if (/^\/quote_options\/\d+\/subjectivities/.test(pointer)) return 'subjectivities';
  return undefined;
}

/** Whether the insurer sent a term at all. */
function termSent(body: Record<string, unknown>, term: TermStep): boolean {
  const given = (value: unknown) => value !== undefined && value !== null;
  if (term === 'valid-until') return given(body.valid_until);
  if (term === 'currency') return given(body.currency);
  if (term === 'decision') return given(body.decision) || given(body.reason);
  const options = Array.isArray(body.quote_options) ? body.quote_options : [];
  return options.some((option: unknown) => given((option as Record<string, unknown> | null)?.subjectivities));
}

const OPTIONAL_TERM: Record<TermStep, string> = {
  'valid-until': 'valid_until (an RFC 3339 timestamp, or a date meaning the end of that day)',
  currency: "currency (ISO 4217; without it, the tender's currency)",
  decision: 'decision (QUOTED, DECLINED, REFERRED) and reason',
  subjectivities: 'subjectivities per option ({text, stage: PRE_BIND or POST_BIND})',
};

interface InsurerCheckStep {
  name: CheckStepName;
  passed: boolean;
  /** Not run, because an earlier step it needs failed (`passed` is then false). */
  skipped: boolean;
  ms: number;
  detail: string;
}

export interface InsurerCheckReport {
  insurer: { id: string; name: string; quoteApiUrl: string };
  /** Every step passed. */
  passed: boolean;
  startedAt: string;
  totalMs: number;
  steps: InsurerCheckStep[];
}

interface InsurerCheckOptions {
  /** How long to wait for the callback after the acknowledgement, ms. */
  waitMs: number;
  /**
   * Why no callback can reach this database, found before the check (the CLI: no gateway answers at its URL).
   * The callback step then fails with this reason at once.
   */
  gatewayProblem?: string | null;
  /**
   * The end of the request the check runs for (the checkInsurer mutation): when it aborts, the check stops where
   * it is (an insurer call in flight is cut off, no later step calls the insurer) and `run` throws its reason.
   */
  signal?: AbortSignal;
}

const limitKey = (limit: Limit) => `${limit.insurance_sum}/${limit.deductible}`;
const sameOptions = (a: KeptOption[], b: KeptOption[]) => {
  const canonical = (options: KeptOption[]) => JSON.stringify(options.map((o) => [o.insurance_sum, o.deductible, o.premium]).sort());
  return canonical(a) === canonical(b);
};
/** Waits `ms`, or less when `signal` aborts (then throws its reason). */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(abortReasonOf(signal!));
    };
    signal?.addEventListener('abort', stop, { once: true });
  });

/** What went wrong in a call: the public reason and the detail (an operator's check shows both). */
function failureOf(error: unknown): string {
  if (error instanceof PartnerError) return `${error.reason}: ${error.detail}`;
  throw error;
}

interface Callbacks {
  count: number;
  /** The first one came before the check had stored the acknowledgement (the gateway parked it). */
  early: boolean;
}

export class InsurerChecker {
  private readonly client: InsurerClient;

  constructor(
    private readonly quotes: QuoteDispatchConfig,
    /** The longest callback wait a caller may ask for. */
    readonly maxWaitMs: number = LIMITS.insurerCheckWaitMs,
  ) {
    this.client = new InsurerClient(quotes);
  }

  /**
   * The longest callback wait with which a whole check (its four insurer calls at QUOTE_TIMEOUT_MS each, and a
   * second to spare) fits in `budgetMs`: a GraphQL request must finish within REQUEST_TIMEOUT_MS.
   */
  static maxWaitWithin(quotes: Pick<QuoteDispatchConfig, 'timeoutMs'>, budgetMs: number): number {
    return Math.min(LIMITS.insurerCheckWaitMs, Math.max(1000, budgetMs - CALLS * quotes.timeoutMs - 1000));
  }

  /** The default wait, within what callers may ask for. */
  get defaultWaitMs(): number {
    return Math.min(DEFAULT_CHECK_WAIT_MS, this.maxWaitMs);
  }

  /** Refuses a wait outside 1 ms to `maxWaitMs` (BAD_USER_INPUT naming `parameter`). */
  checkWait(waitMs: number, parameter = 'waitMs'): number {
    if (!Number.isInteger(waitMs) || waitMs < 1 || waitMs > this.maxWaitMs) {
      throw badInput('The wait is out of range', [{ parameter, message: `must be a whole number of ms from 1 to ${this.maxWaitMs}` }]);
    }
    return waitMs;
  }

  /** The dispatcher's rules for an answer to a request sent at `sentAt`. */
  private answerRules(sentAt: Date) {
    return { zone: this.quotes.validityZone, now: new Date(), earliestValidity: sentAt, refuseControls: false };
  }

  /** An insurer by id or (unless `byName` is false) exact name, else NOT_FOUND. */
  async findInsurer(em: EntityManager, idOrName: string, { byName = true } = {}): Promise<Insurer> {
    const insurer = await em.findOne(Insurer, byName ? { $or: [{ id: idOrName }, { name: idOrName }] } : { id: idOrName });
    if (!insurer) throw notFound(`No insurer has the id ${byName ? 'or name ' : ''}${JSON.stringify(idOrName)}`);
    return insurer;
  }

  async run(em: EntityManager, registered: Insurer, { waitMs, gatewayProblem, signal }: InsurerCheckOptions): Promise<InsurerCheckReport> {
    this.checkWait(waitMs);
    if (registered.integration !== InsurerIntegration.API || !registered.quoteApiUrl) {
      throw badInput('The insurer has no system to check', [
        { parameter: 'insurerId', message: 'a MANUAL insurer answers quote requests through GraphQL; only API insurers are checked' },
      ]);
    }
    const insurer = { ...registered, id: registered.id, name: registered.name, quoteApiUrl: registered.quoteApiUrl };
    signal?.throwIfAborted();
    const startedAt = new Date();
    const started = performance.now();
    const steps: InsurerCheckStep[] = [];
    const record = (name: CheckStepName, passed: boolean, since: number, detail: string) =>
      steps.push({ name, passed, skipped: false, ms: Math.round(performance.now() - since), detail });
    const skip = (name: CheckStepName, detail: string) =>
      steps.push({ name, passed: false, skipped: true, ms: 0, detail: `not run: ${detail}` });

    const body = { limits: CHECK_LIMITS, risk_information: CHECK_RISK_INFORMATION };
    const idempotencyKey = newId();
    const checkId = newId();
    // Rows of checks that died are swept; this one is known before the request goes out, so a callback that
    // comes before the acknowledgement is parked instead of refused.
    await em.fork().nativeDelete(InsurerCheck, { expiresAt: { $lte: startedAt } });
    await em.fork().insert(InsurerCheck, {
      id: checkId,
      insurer: insurer.id,
      insurerReference: null,
      startedAt,
      expiresAt: new Date(startedAt.getTime() + waitMs + CALLS * this.quotes.timeoutMs + 60_000),
      callbacks: 0,
    });
    let reference: string | undefined;
    try {
      // 1. POST /quotes: 2xx within QUOTE_TIMEOUT_MS with {id, status: "PROCESSING"} (spec 2.4, 4.4 rule 1).
      let since = performance.now();
      try {
        const id = parseAcknowledgement(await this.client.requestQuote(insurer, body, idempotencyKey, signal));
        if (await em.fork().count(QuoteRequest, { insurer: insurer.id, insurerReference: id })) {
          record(
            'acknowledgement',
            false,
            since,
            `the insurer answered with id "${id}", which it already gave one of the gateway's quote requests: ids must be unique`,
          );
        } else {
          reference = id;
          await em.fork().nativeUpdate(InsurerCheck, { id: checkId }, { insurerReference: id });
          record(
            'acknowledgement',
            true,
            since,
            `answered {"id": "${id}", "status": "PROCESSING"} within the ${this.quotes.timeoutMs} ms timeout`,
          );
        }
      } catch (error) {
        record('acknowledgement', false, since, failureOf(error));
      }

      signal?.throwIfAborted();
      // 2. The callback (spec 4.5), through the gateway's route with the insurer's token.
      let callbackArrived = false;
      let callbackSeenAt = 0;
      since = performance.now();
      if (!reference) skip('callback', 'no acknowledgement');
      else if (gatewayProblem) record('callback', false, since, gatewayProblem);
      else {
        const arrived = await this.waitForCallbacks(em, checkId, insurer.id, reference, 1, since + waitMs, signal);
        callbackArrived = arrived.count > 0;
        callbackSeenAt = performance.now();
        record(
          'callback',
          callbackArrived,
          since,
          !callbackArrived
            ? `no callback for "${reference}" within ${waitMs} ms: the insurer system posts {"quote_request_id": "${reference}"} to the gateway's callback URL with its own token once the quote is ready`
            : arrived.early
              ? `arrived before the acknowledgement was stored; the gateway parked it and the check honoured it`
              : `the gateway accepted {"quote_request_id": "${reference}"} (202)`,
        );
      }

      signal?.throwIfAborted();
      // 3. GET /quotes/{id}: the spec's shape, options for the requested limits.
      let firstQuote: KeptOption[] | undefined;
      let fetched: Record<string, unknown> | undefined;
      since = performance.now();
      if (!reference) skip('quote', 'no acknowledgement');
      else if (!callbackArrived) skip('quote', 'no callback (the gateway fetches a quote only after its callback, spec 4.4 rule 2)');
      else {
        try {
          const raw = await this.client.fetchQuote(insurer, reference, signal);
          if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) fetched = raw as Record<string, unknown>;
          const { options, note, decision } = parseQuote(raw, reference, CHECK_LIMITS, this.answerRules(startedAt));
          const missing = CHECK_LIMITS.filter((limit) => !options.some((option) => limitKey(option) === limitKey(limit))).map(limitKey);
          const dropped = note ? `; ${note} (the gateway drops those)` : '';
          if (decision === QuoteDecision.REFERRED) {
            record(
              'quote',
              false,
              since,
              `referred: a valid answer for a real tender (the gateway waits for a further callback and fetches once more), but the check needs options for its limits ${CHECK_LIMITS.map(limitKey).join(', ')} to see their shape`,
            );
          } else if (options.length === 0) {
            record(
              'quote',
              false,
              since,
              `declined: quote_options is empty. A valid answer for a real tender, but the check needs options for its limits ${CHECK_LIMITS.map(limitKey).join(', ')} to see their shape`,
            );
          } else if (missing.length > 0) {
            record(
              'quote',
              false,
              since,
              `no option for the requested limit(s) ${missing.join(', ')} (insurance_sum/deductible)${dropped}`,
            );
          } else {
            firstQuote = options;
            const offered = options.map((option) => `${limitKey(option)}: premium ${option.premium}`).join(', ');
            record(
              'quote',
              true,
              since,
              `${options.length} option(s) for the ${CHECK_LIMITS.length} requested limits (${offered})${dropped}`,
            );
          }
        } catch (error) {
          record('quote', false, since, failureOf(error));
        }
      }

      // The optional terms (spec 2.5), each on its own: not sent is fine, sent must be valid.
      const rules = this.answerRules(startedAt);
      const problems = fetched ? readQuoteAnswer(fetched, CHECK_LIMITS, rules).problems : [];
      for (const term of TERM_STEPS) {
        since = performance.now();
        if (!fetched) {
          skip(term, 'no quote was fetched');
          continue;
        }
        const own = problems.filter((problem) => termOf(problem.pointer) === term);
        if (own.length > 0)
          record(term, false, since, own.map((problem) => `${problem.pointer.slice(1).replace(/\//g, '.')} ${problem.message}`).join('; '));
        else if (!termSent(fetched, term)) record(term, true, since, `not sent (optional: ${OPTIONAL_TERM[term]})`);
        else record(term, true, since, `valid: ${describeTerm(fetched, term, rules.zone)}`);
      }

      signal?.throwIfAborted();
      // 4. The same POST with the same Idempotency-Key: what the gateway does after a timeout or a 5xx.
      since = performance.now();
      if (!reference) skip('idempotency', 'no acknowledgement');
      else {
        try {
          const again = parseAcknowledgement(await this.client.requestQuote(insurer, body, idempotencyKey, signal));
          record(
            'idempotency',
            true,
            since,
            again === reference
              ? `the same request with the same Idempotency-Key was answered with the same id "${reference}"`
              : `the same request with the same Idempotency-Key was answered with a new id "${again}" (first "${reference}"): harmless to the gateway, which keeps the id of the delivery that got through, but your system then holds two requests for one of the gateway's; answer the same id for the same key`,
          );
        } catch (error) {
          record(
            'idempotency',
            false,
            since,
            `a repeated delivery (the gateway sends the same request with the same Idempotency-Key again after a timeout or a 5xx) would fail the quote request: ${failureOf(error)}`,
          );
        }
      }

      signal?.throwIfAborted();
      // 5. A second callback: accepted (202) and nothing changes; only observable when the insurer sends one.
      since = performance.now();
      if (!reference) skip('duplicate-callback', 'no acknowledgement');
      else if (!callbackArrived) skip('duplicate-callback', 'no callback');
      else if (!firstQuote)
        skip('duplicate-callback', 'the quote fetch did not pass (the check compares the quote before and after a repeated callback)');
      else {
        const { count } = await this.waitForCallbacks(em, checkId, insurer.id, reference, 2, callbackSeenAt + REPEAT_WAIT_MS, signal);
        if (count < 2) {
          record(
            'duplicate-callback',
            true,
            since,
            'not observed: the insurer called back once (a repeated callback is answered 202 and changes nothing; the check cannot make an insurer send one)',
          );
        } else {
          try {
            const { options } = parseQuote(
              await this.client.fetchQuote(insurer, reference, signal),
              reference,
              CHECK_LIMITS,
              this.answerRules(startedAt),
            );
            record(
              'duplicate-callback',
              sameOptions(options, firstQuote),
              since,
              sameOptions(options, firstQuote)
                ? `the insurer called back ${count} times; the gateway accepted each (202) and the quote fetched again is unchanged`
                : `the insurer called back ${count} times and the quote changed in between: the gateway fetches a quote once, after the first callback, and keeps that answer`,
            );
          } catch (error) {
            record(
              'duplicate-callback',
              false,
              since,
              `the insurer called back ${count} times, but the quote fetched again failed: ${failureOf(error)}`,
            );
          }
        }
      }
    } finally {
      await em.fork().nativeDelete(InsurerCheck, { id: checkId });
      if (reference) await em.fork().nativeDelete(EarlyCallback, { insurer: insurer.id, insurerReference: reference });
    }
    return {
      insurer: { id: insurer.id, name: insurer.name, quoteApiUrl: insurer.quoteApiUrl },
      passed: steps.every((step) => step.passed),
      startedAt: startedAt.toISOString(),
      totalMs: Math.round(performance.now() - started),
      steps,
    };
  }

  /** Polls until `wanted` callbacks for the check's id were accepted, or `deadline` (performance.now() time) passed. */
  private async waitForCallbacks(
    em: EntityManager,
    checkId: string,
    insurerId: string,
    reference: string,
    wanted: number,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<Callbacks> {
    for (;;) {
      const seen = await this.callbacks(em, checkId, insurerId, reference);
      if (seen.count >= wanted || performance.now() >= deadline) return seen;
      await sleep(Math.min(POLL_MS, Math.max(0, deadline - performance.now())), signal);
    }
  }

  /**
   * The callbacks the gateway accepted for the check's id: counted on its row, or parked as an early callback
   * while the acknowledgement was not stored yet (claimed here and counted).
   */
  private async callbacks(em: EntityManager, checkId: string, insurerId: string, reference: string): Promise<Callbacks> {
    const fork = em.fork();
    let early = false;
    const parked = await fork.findOne(EarlyCallback, { insurer: insurerId, insurerReference: reference });
    if (parked && (await fork.nativeDelete(EarlyCallback, { id: parked.id })) > 0) {
      early = true;
      await fork.nativeUpdate(InsurerCheck, { id: checkId }, { callbacks: raw('callbacks + 1'), lastCallbackAt: parked.receivedAt });
      await fork.nativeUpdate(InsurerCheck, { id: checkId, firstCallbackAt: null }, { firstCallbackAt: parked.receivedAt });
    }
    const check = await fork.findOne(InsurerCheck, { id: checkId });
    return { count: check?.callbacks ?? 0, early };
  }
}
