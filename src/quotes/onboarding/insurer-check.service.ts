import type { EntityManager } from '@mikro-orm/core';
import { Insurer, InsurerIntegration } from '../../insurers';
import type { QuoteDispatchConfig } from '../../platform/config';
import { badInput, notFound } from '../../platform/errors/domain-error';
import { LIMITS } from '../../platform/validation/rules';
import { InsurerClient } from '../dispatch/insurer-client';
import { CALLS, CheckRun, type InsurerCheckOptions, type InsurerCheckReport } from './insurer-check-run';
import { CHECK_STEPS } from './insurer-check-steps';

/**
 * The onboarding check (docs/quotation-onboarding.md): one real quote exchange with a registered
 * insurer system on a synthetic request that belongs to no tender, so nobody sees it. It goes through the same
 * insurer client (deadline, byte cap, URL allow-list) and the same payload checks as the dispatcher; the
 * insurer's callback reaches the gateway's callback route with the insurer's own token, where the check's row
 * (`InsurerCheck`) makes its id known. Its steps are in insurer-check-steps.ts, what they share in
 * insurer-check-run.ts.
 */

/** How long the check waits for the callback unless told otherwise, ms. */
const DEFAULT_CHECK_WAIT_MS = 30_000;

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

  /** An insurer by id or (unless `byName` is false) exact name, else NOT_FOUND. */
  async findInsurer(em: EntityManager, idOrName: string, { byName = true } = {}): Promise<Insurer> {
    const insurer = await em.findOne(Insurer, byName ? { $or: [{ id: idOrName }, { name: idOrName }] } : { id: idOrName });
    if (!insurer) throw notFound(`No insurer has the id ${byName ? 'or name ' : ''}${JSON.stringify(idOrName)}`);
    return insurer;
  }

  /** Runs the check's steps against `registered` and reports each; throws the signal's reason when it aborts. */
  async run(em: EntityManager, registered: Insurer, options: InsurerCheckOptions): Promise<InsurerCheckReport> {
    this.checkWait(options.waitMs);
    if (registered.integration !== InsurerIntegration.API || !registered.quoteApiUrl) {
      throw badInput('The insurer has no system to check', [
        { parameter: 'insurerId', message: 'a MANUAL insurer answers quote requests through GraphQL; only API insurers are checked' },
      ]);
    }
    const insurer = { ...registered, id: registered.id, name: registered.name, quoteApiUrl: registered.quoteApiUrl };
    options.signal?.throwIfAborted();
    const run = new CheckRun(em, this.client, this.quotes, insurer, options);
    await run.open();
    try {
      for (const [index, step] of CHECK_STEPS.entries()) {
        if (index > 0) options.signal?.throwIfAborted();
        await step(run);
      }
    } finally {
      await run.close();
    }
    return run.report();
  }
}
