import { performance } from 'node:perf_hooks';
import { PartnerError } from '../dispatch/insurer-client';
import { parseAcknowledgement, parseQuote } from '../dispatch/insurer-payloads';
import { parseInstantOrDay, readQuoteAnswer, type KeptOption } from '../quote-answer';
import type { Limit } from '../quote-request.entity';
import { QuoteDecision } from '../quote-request-status';
import { QuoteRequest } from '../quote-request.entity';
import { CHECK_LIMITS, type CheckRun, TERM_STEPS, type TermStep } from './insurer-check-run';

/** A repeated callback is looked for until this long after the first was seen (and the steps between), ms. */
const REPEAT_WAIT_MS = 500;

const OPTIONAL_TERM: Record<TermStep, string> = {
  'valid-until': 'valid_until (an RFC 3339 timestamp, or a date meaning the end of that day)',
  currency: "currency (ISO 4217; without it, the tender's currency)",
  decision: 'decision (QUOTED, DECLINED, REFERRED) and reason',
  subjectivities: 'subjectivities per option ({text, stage: PRE_BIND or POST_BIND})',
};

const limitKey = (limit: Limit) => `${limit.insurance_sum}/${limit.deductible}`;
const sameOptions = (a: KeptOption[], b: KeptOption[]) => {
  const canonical = (options: KeptOption[]) => JSON.stringify(options.map((o) => [o.insurance_sum, o.deductible, o.premium]).sort());
  return canonical(a) === canonical(b);
};

/** What went wrong in a call: the public reason and the detail (an operator's check shows both). */
function failureOf(error: unknown): string {
  if (error instanceof PartnerError) return `${error.reason}: ${error.detail}`;
  throw error;
}

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

/** What a valid term says, for the report. */
function describeTerm(body: Record<string, unknown>, term: TermStep, zone: string): string {
  if (term === 'valid-until')
    return `valid until ${parseInstantOrDay(body.valid_until, zone)!.toISOString()} (${JSON.stringify(body.valid_until)})`;
  if (term === 'currency') return `currency ${String(body.currency)}`;
  if (term === 'decision') return `decision ${JSON.stringify(body.decision ?? null)}${body.reason ? ', with a reason' : ''}`;
  const count = (body.quote_options as { subjectivities?: unknown[] | null }[]).reduce(
    (sum, option) => sum + (Array.isArray(option?.subjectivities) ? option.subjectivities.length : 0),
    0,
  );
  return `${count} subjectivities`;
}

/** 1. POST /quotes: 2xx within QUOTE_TIMEOUT_MS with {id, status: "PROCESSING"} (spec 2.4, 4.4 rule 1). */
async function acknowledgement(run: CheckRun): Promise<void> {
  const { em, client, insurer } = run;
  const since = performance.now();
  try {
    const id = parseAcknowledgement(await client.requestQuote(insurer, run.body, run.idempotencyKey, run.signal));
    if (await em.fork().count(QuoteRequest, { insurer: insurer.id, insurerReference: id })) {
      run.record(
        'acknowledgement',
        false,
        since,
        `the insurer answered with id "${id}", which it already gave one of the gateway's quote requests: ids must be unique`,
      );
    } else {
      await run.acknowledged(id);
      run.record(
        'acknowledgement',
        true,
        since,
        `answered {"id": "${id}", "status": "PROCESSING"} within the ${run.quotes.timeoutMs} ms timeout`,
      );
    }
  } catch (error) {
    run.record('acknowledgement', false, since, failureOf(error));
  }
}

/** 2. The callback (spec 4.5), through the gateway's route with the insurer's token. */
async function callback(run: CheckRun): Promise<void> {
  const { reference } = run;
  const { waitMs, gatewayProblem } = run.options;
  const since = performance.now();
  if (!reference) return run.skip('callback', 'no acknowledgement');
  if (gatewayProblem) return run.record('callback', false, since, gatewayProblem);
  const arrived = await run.waitForCallbacks(reference, 1, since + waitMs);
  run.callbackArrived = arrived.count > 0;
  run.callbackSeenAt = performance.now();
  run.record(
    'callback',
    run.callbackArrived,
    since,
    !run.callbackArrived
      ? `no callback for "${reference}" within ${waitMs} ms: the insurer system posts {"quote_request_id": "${reference}"} to the gateway's callback URL with its own token once the quote is ready`
      : arrived.early
        ? `arrived before the acknowledgement was stored; the gateway parked it and the check honoured it`
        : `the gateway accepted {"quote_request_id": "${reference}"} (202)`,
  );
}

/** 3. GET /quotes/{id}: the spec's shape, options for the requested limits. */
async function quote(run: CheckRun): Promise<void> {
  const { reference } = run;
  const since = performance.now();
  if (!reference) return run.skip('quote', 'no acknowledgement');
  if (!run.callbackArrived) return run.skip('quote', 'no callback (the gateway fetches a quote only after its callback, spec 4.4 rule 2)');
  try {
    const raw = await run.client.fetchQuote(run.insurer, reference, run.signal);
    if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) run.fetched = raw as Record<string, unknown>;
    const { options, note, decision } = parseQuote(raw, reference, CHECK_LIMITS, run.answerRules());
    const missing = CHECK_LIMITS.filter((limit) => !options.some((option) => limitKey(option) === limitKey(limit))).map(limitKey);
    const dropped = note ? `; ${note} (the gateway drops those)` : '';
    if (decision === QuoteDecision.REFERRED) {
      run.record(
        'quote',
        false,
        since,
        `referred: a valid answer for a real tender (the gateway waits for a further callback and fetches once more), but the check needs options for its limits ${CHECK_LIMITS.map(limitKey).join(', ')} to see their shape`,
      );
    } else if (options.length === 0) {
      run.record(
        'quote',
        false,
        since,
        `declined: quote_options is empty. A valid answer for a real tender, but the check needs options for its limits ${CHECK_LIMITS.map(limitKey).join(', ')} to see their shape`,
      );
    } else if (missing.length > 0) {
      run.record('quote', false, since, `no option for the requested limit(s) ${missing.join(', ')} (insurance_sum/deductible)${dropped}`);
    } else {
      run.firstQuote = options;
      const offered = options.map((option) => `${limitKey(option)}: premium ${option.premium}`).join(', ');
      run.record(
        'quote',
        true,
        since,
        `${options.length} option(s) for the ${CHECK_LIMITS.length} requested limits (${offered})${dropped}`,
      );
    }
  } catch (error) {
    run.record('quote', false, since, failureOf(error));
  }
}

/** The optional terms (spec 2.5), each on its own: not sent is fine, sent must be valid. */
function terms(run: CheckRun): void {
  const { fetched } = run;
  const rules = run.answerRules();
  const problems = fetched ? readQuoteAnswer(fetched, CHECK_LIMITS, rules).problems : [];
  for (const term of TERM_STEPS) {
    const since = performance.now();
    if (!fetched) {
      run.skip(term, 'no quote was fetched');
      continue;
    }
    const own = problems.filter((problem) => termOf(problem.pointer) === term);
    if (own.length > 0)
      run.record(term, false, since, own.map((problem) => `${problem.pointer.slice(1).replace(/\//g, '.')} ${problem.message}`).join('; '));
    else if (!termSent(fetched, term)) run.record(term, true, since, `not sent (optional: ${OPTIONAL_TERM[term]})`);
    else run.record(term, true, since, `valid: ${describeTerm(fetched, term, rules.zone)}`);
  }
}

/** 4. The same POST with the same Idempotency-Key: what the gateway does after a timeout or a 5xx. */
async function idempotency(run: CheckRun): Promise<void> {
  const { reference } = run;
  const since = performance.now();
  if (!reference) return run.skip('idempotency', 'no acknowledgement');
  try {
    const again = parseAcknowledgement(await run.client.requestQuote(run.insurer, run.body, run.idempotencyKey, run.signal));
    run.record(
      'idempotency',
      true,
      since,
      again === reference
        ? `the same request with the same Idempotency-Key was answered with the same id "${reference}"`
        : `the same request with the same Idempotency-Key was answered with a new id "${again}" (first "${reference}"): harmless to the gateway, which keeps the id of the delivery that got through, but your system then holds two requests for one of the gateway's; answer the same id for the same key`,
    );
  } catch (error) {
    run.record(
      'idempotency',
      false,
      since,
      `a repeated delivery (the gateway sends the same request with the same Idempotency-Key again after a timeout or a 5xx) would fail the quote request: ${failureOf(error)}`,
    );
  }
}

/** 5. A second callback: accepted (202) and nothing changes; only observable when the insurer sends one. */
async function duplicateCallback(run: CheckRun): Promise<void> {
  const { reference, firstQuote } = run;
  const since = performance.now();
  if (!reference) return run.skip('duplicate-callback', 'no acknowledgement');
  if (!run.callbackArrived) return run.skip('duplicate-callback', 'no callback');
  if (!firstQuote)
    return run.skip(
      'duplicate-callback',
      'the quote fetch did not pass (the check compares the quote before and after a repeated callback)',
    );
  const { count } = await run.waitForCallbacks(reference, 2, run.callbackSeenAt + REPEAT_WAIT_MS);
  if (count < 2) {
    return run.record(
      'duplicate-callback',
      true,
      since,
      'not observed: the insurer called back once (a repeated callback is answered 202 and changes nothing; the check cannot make an insurer send one)',
    );
  }
  try {
    const { options } = parseQuote(
      await run.client.fetchQuote(run.insurer, reference, run.signal),
      reference,
      CHECK_LIMITS,
      run.answerRules(),
    );
    run.record(
      'duplicate-callback',
      sameOptions(options, firstQuote),
      since,
      sameOptions(options, firstQuote)
        ? `the insurer called back ${count} times; the gateway accepted each (202) and the quote fetched again is unchanged`
        : `the insurer called back ${count} times and the quote changed in between: the gateway fetches a quote once, after the first callback, and keeps that answer`,
    );
  } catch (error) {
    run.record(
      'duplicate-callback',
      false,
      since,
      `the insurer called back ${count} times, but the quote fetched again failed: ${failureOf(error)}`,
    );
  }
}

/**
 * The check's steps in their order, each recording its own outcome (or why it was not run) on the run; the runner
 * stops between two steps when the run was aborted.
 */
export const CHECK_STEPS: readonly ((run: CheckRun) => Promise<void> | void)[] = [
  acknowledgement,
  callback,
  quote,
  terms,
  idempotency,
  duplicateCallback,
];
