import { performance } from 'node:perf_hooks';
import { raw, type EntityManager } from '@mikro-orm/core';
import type { Insurer } from '../../insurers';
import type { QuoteDispatchConfig } from '../../platform/config';
import { newId } from '../../platform/db/ids';
import { abortReasonOf } from '../../platform/errors/normalize';
import { EarlyCallback } from '../callback/early-callback.entity';
import type { InsurerClient } from '../dispatch/insurer-client';
import type { KeptOption } from '../quote-answer';
import type { Limit } from '../quote-request.entity';
import { InsurerCheck } from './insurer-check.entity';

/** The limits the check asks a quote for. */
export const CHECK_LIMITS: readonly Limit[] = [
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

/** How often the check looks for the callback, ms. */
const POLL_MS = 50;
/** Insurer calls one check makes at most, each bounded by QUOTE_TIMEOUT_MS: two POSTs and two GETs. */
export const CALLS = 4;

/** The optional terms of spec 2.5 (docs/quotation-terms.md), each a step of its own. */
export const TERM_STEPS = ['valid-until', 'currency', 'decision', 'subjectivities'] as const;
export type TermStep = (typeof TERM_STEPS)[number];

type CheckStepName = 'acknowledgement' | 'callback' | 'quote' | TermStep | 'idempotency' | 'duplicate-callback';

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

export interface InsurerCheckOptions {
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

/** An insurer with a system to check. */
export type CheckedInsurer = Insurer & { quoteApiUrl: string };

interface Callbacks {
  count: number;
  /** The first one came before the check had stored the acknowledgement (the gateway parked it). */
  early: boolean;
}

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

/**
 * One check in progress: what its steps share (the insurer, the request sent twice, the check's row) and what each
 * step leaves for the next (the insurer's id, whether the callback came, the quote fetched), and the report.
 */
export class CheckRun {
  readonly body = { limits: CHECK_LIMITS, risk_information: CHECK_RISK_INFORMATION };
  readonly idempotencyKey = newId();
  readonly checkId = newId();
  readonly startedAt = new Date();
  private readonly started = performance.now();
  private readonly steps: InsurerCheckStep[] = [];

  /** The insurer's id for the check's request, once acknowledged. */
  reference: string | undefined;
  callbackArrived = false;
  /** When the first callback was seen (performance.now() time). */
  callbackSeenAt = 0;
  /** The quote's options, when the quote step passed. */
  firstQuote: KeptOption[] | undefined;
  /** The quote's body as fetched, when it was an object. */
  fetched: Record<string, unknown> | undefined;

  constructor(
    readonly em: EntityManager,
    readonly client: InsurerClient,
    readonly quotes: QuoteDispatchConfig,
    readonly insurer: CheckedInsurer,
    readonly options: InsurerCheckOptions,
  ) {}

  get signal(): AbortSignal | undefined {
    return this.options.signal;
  }

  /** The dispatcher's rules for an answer to the check's request. */
  answerRules() {
    return { zone: this.quotes.validityZone, now: new Date(), earliestValidity: this.startedAt, refuseControls: false };
  }

  record(name: CheckStepName, passed: boolean, since: number, detail: string): void {
    this.steps.push({ name, passed, skipped: false, ms: Math.round(performance.now() - since), detail });
  }

  skip(name: CheckStepName, detail: string): void {
    this.steps.push({ name, passed: false, skipped: true, ms: 0, detail: `not run: ${detail}` });
  }

  /**
   * Stores the check's row. Rows of checks that died are swept; this one is known before the request goes out, so a
   * callback that comes before the acknowledgement is parked instead of refused.
   */
  async open(): Promise<void> {
    await this.em.fork().nativeDelete(InsurerCheck, { expiresAt: { $lte: this.startedAt } });
    await this.em.fork().insert(InsurerCheck, {
      id: this.checkId,
      insurer: this.insurer.id,
      insurerReference: null,
      startedAt: this.startedAt,
      expiresAt: new Date(this.startedAt.getTime() + this.options.waitMs + CALLS * this.quotes.timeoutMs + 60_000),
      callbacks: 0,
    });
  }

  /** The insurer acknowledged the check's request with `id`: its callback is known by it from now on. */
  async acknowledged(id: string): Promise<void> {
    this.reference = id;
    await this.em.fork().nativeUpdate(InsurerCheck, { id: this.checkId }, { insurerReference: id });
  }

  /** Removes the check's row and a callback still parked for its id. */
  async close(): Promise<void> {
    await this.em.fork().nativeDelete(InsurerCheck, { id: this.checkId });
    if (this.reference) await this.em.fork().nativeDelete(EarlyCallback, { insurer: this.insurer.id, insurerReference: this.reference });
  }

  report(): InsurerCheckReport {
    const { insurer } = this;
    return {
      insurer: { id: insurer.id, name: insurer.name, quoteApiUrl: insurer.quoteApiUrl },
      passed: this.steps.every((step) => step.passed),
      startedAt: this.startedAt.toISOString(),
      totalMs: Math.round(performance.now() - this.started),
      steps: this.steps,
    };
  }

  /** Polls until `wanted` callbacks for the check's id were accepted, or `deadline` (performance.now() time) passed. */
  async waitForCallbacks(reference: string, wanted: number, deadline: number): Promise<Callbacks> {
    for (;;) {
      const seen = await this.callbacks(reference);
      if (seen.count >= wanted || performance.now() >= deadline) return seen;
      await sleep(Math.min(POLL_MS, Math.max(0, deadline - performance.now())), this.signal);
    }
  }

  /**
   * The callbacks the gateway accepted for the check's id: counted on its row, or parked as an early callback
   * while the acknowledgement was not stored yet (claimed here and counted).
   */
  private async callbacks(reference: string): Promise<Callbacks> {
    const fork = this.em.fork();
    let early = false;
    const parked = await fork.findOne(EarlyCallback, { insurer: this.insurer.id, insurerReference: reference });
    if (parked && (await fork.nativeDelete(EarlyCallback, { id: parked.id })) > 0) {
      early = true;
      await fork.nativeUpdate(InsurerCheck, { id: this.checkId }, { callbacks: raw('callbacks + 1'), lastCallbackAt: parked.receivedAt });
      await fork.nativeUpdate(InsurerCheck, { id: this.checkId, firstCallbackAt: null }, { firstCallbackAt: parked.receivedAt });
    }
    const check = await fork.findOne(InsurerCheck, { id: this.checkId });
    return { count: check?.callbacks ?? 0, early };
  }
}
