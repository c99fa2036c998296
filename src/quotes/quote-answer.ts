import { DateTime } from 'luxon';
import { isJsonObject } from '../platform/validation/json';
import { LIMITS, textProblem as textRuleProblem } from '../platform/validation/rules';
import { problemsOf } from '../platform/validation/validate';
import { parseTimestamp } from '../platform/validation/timestamp';
import { sanitise } from '../platform/http/partner-client';
import type { Subjectivity } from './quote-option.entity';
import { QuoteDecision, SubjectivityStage } from './quote-request-status';
import type { Limit } from './quote-request.entity';
import { QuoteOptionPayload as QuoteOptionRules } from './quote-rules';

/**
 * An underwriter's answer (spec 2.5 and its optional terms, docs/quotation-terms.md), read the same way
 * whether an insurer system sent it (the dispatcher's fetch) or a person entered it (`submitManualQuote`): one
 * rule for both, each problem named by its JSON pointer in the spec's snake_case.
 */

/** The currency of a quote that names none: the tender's (tenders carry no currency of their own yet, so EUR). */
export const DEFAULT_CURRENCY = 'EUR';
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));
const STAGES: readonly string[] = Object.values(SubjectivityStage);
const DECISIONS: readonly string[] = Object.values(QuoteDecision);
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

export interface KeptOption {
  insurance_sum: number;
  deductible: number;
  premium: number;
  /** Null when the option names none (spec-only insurers): nothing new is stored for them. */
  subjectivities: Subjectivity[] | null;
}

export interface QuoteAnswer {
  decision: QuoteDecision;
  options: KeptOption[];
  validUntil: Date | null;
  /** As given; null: the default currency. */
  currency: string | null;
  /** Control characters escaped. */
  reason: string | null;
  /** For internal users: what was dropped from the answer, if anything. */
  note: string | null;
}

export interface AnswerProblem {
  /** JSON pointer into the answer, e.g. `/quote_options/2/subjectivities/0/text`; `` for the whole. */
  pointer: string;
  message: string;
}

export interface AnswerRules {
  /** QUOTE_VALIDITY_ZONE: a `valid_until` date means the end of that day there. */
  zone: string;
  now: Date;
  /**
   * A validity before this is refused (now, for a person: a typo is answered at once); null: any validity is taken, and
   * one already past makes an EXPIRED quote (an insurer system's answer is a fact, not an input to correct).
   */
  earliestValidity: Date | null;
  /** Whether text the text rule refuses is refused (a person's input) or kept with it escaped (an insurer's). */
  refuseControls: boolean;
}

/**
 * The last millisecond of a calendar day in `zone` (luxon's end of the day): the instant before the next day first
 * begins there. Where midnight does not exist (DST starting at 00:00, as in America/Santiago or America/Havana) the
 * next day begins at 01:00; where it comes twice (DST ending at 01:00, as in Havana or the Azores), at the first. A day
 * the zone skipped (Pacific/Apia's 30 December 2011) ends where the day before it does, when the day after it begins.
 */
export function endOfDayIn(year: number, month: number, day: number, zone: string): Date {
  const start = DateTime.fromObject({ year, month, day }, { zone });
  // luxon moves a time that does not exist forward: a skipped day starts in the day after it.
  const end = start.day === day ? start.endOf('day') : start.startOf('day').minus(1);
  return end.toJSDate();
}

/** `valid_until` and a subjectivity's `due_at`: an RFC 3339 timestamp, or a date meaning the end of that day in `zone`. */
export function parseInstantOrDay(value: unknown, zone: string): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const day = DAY.exec(value);
  if (!day) return parseTimestamp(value);
  const [year, month, date] = [Number(day[1]), Number(day[2]), Number(day[3])];
  if (year < 1 || month < 1 || month > 12 || date < 1 || date > new Date(Date.UTC(year + 400, month, 0)).getUTCDate()) return undefined;
  return endOfDayIn(year, month, date, zone);
}

const absent = (value: unknown) => value === undefined || value === null;
const shown = (value: unknown, max = 100) => sanitise(JSON.stringify(value) ?? 'nothing', max);
/** Text as stored: what the text rule refuses escaped in an insurer's (a person's is refused before). */
const stored = (text: string) => sanitise(text, Number.MAX_SAFE_INTEGER);

function textProblem(value: unknown, max: number, rules: AnswerRules): string | undefined {
  if (typeof value !== 'string') return `must be a string, got ${shown(value)}`;
  if (value.trim().length === 0) return 'must not be blank';
  if (value.length > max) return `must be at most ${max} characters, got ${value.length}`;
  // A person's text obeys the one text rule (one line); an insurer's is kept with what it refuses escaped (`stored`).
  if (rules.refuseControls) return textRuleProblem(value, 'line');
  return undefined;
}

function optionProblem(option: unknown): string | undefined {
  const [problem] = problemsOf(QuoteOptionRules, option, 'pointer');
  if (problem) return `${problem.pointer ? `${problem.pointer.slice(1)} ` : ''}${problem.message}`;
  const { insurance_sum: sum, deductible } = option as KeptOption;
  return deductible >= sum ? 'deductible must be below the insurance sum' : undefined;
}

function readSubjectivities(value: unknown, at: string, rules: AnswerRules, problems: AnswerProblem[]): Subjectivity[] | null {
  if (absent(value)) return null;
  if (!Array.isArray(value)) {
    problems.push({ pointer: at, message: 'must be a list of {"text", "stage"}' });
    return null;
  }
  if (value.length > LIMITS.subjectivitiesPerOption) {
    problems.push({ pointer: at, message: `must hold at most ${LIMITS.subjectivitiesPerOption} subjectivities, got ${value.length}` });
    return null;
  }
  const read: Subjectivity[] = [];
  value.forEach((item: unknown, index) => {
    if (!isJsonObject(item)) {
      problems.push({ pointer: `${at}/${index}`, message: 'must be an object {"text", "stage"}' });
      return;
    }
    const textIssue = textProblem(item.text, LIMITS.subjectivityText, rules);
    if (textIssue) problems.push({ pointer: `${at}/${index}/text`, message: textIssue });
    if (typeof item.stage !== 'string' || !STAGES.includes(item.stage))
      problems.push({ pointer: `${at}/${index}/stage`, message: `must be ${STAGES.join(' or ')}, got ${shown(item.stage)}` });
    // `due_at` (an addition to spec 2.5, optional): by when it must be met, read as `valid_until` is.
    const dueAt = absent(item.due_at) ? undefined : parseInstantOrDay(item.due_at, rules.zone);
    if (!absent(item.due_at) && !dueAt)
      problems.push({
        pointer: `${at}/${index}/due_at`,
        message: `must be an RFC 3339 timestamp with an offset or a date (YYYY-MM-DD, the end of that day in ${rules.zone}), got ${shown(item.due_at)}`,
      });
    if (!textIssue && STAGES.includes(item.stage as string) && (dueAt || absent(item.due_at)))
      read.push({
        text: stored(item.text as string),
        stage: item.stage as SubjectivityStage,
        ...(dueAt ? { dueAt: dueAt.toISOString() } : {}),
      });
  });
  return read;
}

/** Options with the same limit and the same subjectivities are one offer; a different subjectivity is another offer. */
const offerKey = (option: KeptOption) =>
  `${option.insurance_sum}/${option.deductible}|${JSON.stringify((option.subjectivities ?? []).map((s) => [s.stage, s.text]).sort())}`;
const limitKey = (option: { insurance_sum: number; deductible: number }) => `${option.insurance_sum}/${option.deductible}`;

/**
 * Which options a quote keeps: those for requested limits; of several with the same limit and subjectivities the
 * cheapest (the others are the same offer dearer); at most LIMITS.keptOptionsPerQuote offers, each requested limit's
 * cheapest first, then the cheapest of the rest. What is dropped is noted.
 */
function keep(options: KeptOption[], requested: readonly Limit[]): { kept: KeptOption[]; notes: string[]; offeredElsewhere: string[] } {
  const wanted = new Set(requested.map(limitKey));
  const offers = new Map<string, { option: KeptOption; position: number }>();
  const unrequested: string[] = [];
  let dearer = 0;
  options.forEach((option, position) => {
    if (!wanted.has(limitKey(option))) {
      unrequested.push(limitKey(option));
      return;
    }
    const key = offerKey(option);
    const earlier = offers.get(key);
    if (!earlier) offers.set(key, { option, position });
    else {
      dearer++;
      if (option.premium < earlier.option.premium) offers.set(key, { option, position: earlier.position });
    }
  });
  const byPremium = [...offers.values()].sort((a, b) => a.option.premium - b.option.premium || a.position - b.position);
  const chosen = new Set<(typeof byPremium)[number]>();
  const limitsSeen = new Set<string>();
  for (const offer of byPremium) {
    if (limitsSeen.has(limitKey(offer.option))) continue;
    limitsSeen.add(limitKey(offer.option));
    chosen.add(offer);
  }
  for (const offer of byPremium) if (chosen.size < LIMITS.keptOptionsPerQuote) chosen.add(offer);
  const beyond = byPremium.length - chosen.size;
  const notes = [
    ...(unrequested.length === 0
      ? []
      : [`dropped ${unrequested.length} option(s) for limits that were not requested: ${unrequested.slice(0, 10).join(', ')}`]),
    ...(dearer === 0 ? [] : [`dropped ${dearer} more expensive option(s) for a limit already offered`]),
    ...(beyond <= 0 ? [] : [`dropped ${beyond} option(s) beyond the ${LIMITS.keptOptionsPerQuote} a quote keeps (the dearest)`]),
  ];
  const kept = [...chosen].sort((a, b) => a.position - b.position).map((offer) => offer.option);
  return { kept, notes, offeredElsewhere: unrequested };
}

/**
 * Reads an answer: spec 2.5's `quote_options` (every option valid, or the whole answer is refused) and the optional
 * terms `decision`, `valid_until`, `currency`, `reason` and per option `subjectivities`. Returns every problem, or the
 * answer with the options it keeps. The `id` is the caller's concern (only an insurer system sends one).
 */
export function readQuoteAnswer(
  body: Record<string, unknown>,
  requested: readonly Limit[],
  rules: AnswerRules,
): { problems: AnswerProblem[]; answer?: QuoteAnswer } {
  const problems: AnswerProblem[] = [];
  const raw = body.quote_options;
  if (!Array.isArray(raw)) return { problems: [{ pointer: '/quote_options', message: 'must be an array' }] };
  if (raw.length > LIMITS.optionsPerQuote) return { problems: [{ pointer: '', message: `more than ${LIMITS.optionsPerQuote} options` }] };
  const options: KeptOption[] = [];
  raw.forEach((option: unknown, index) => {
    const problem = optionProblem(option);
    if (problem) {
      problems.push({ pointer: `/quote_options/${index}`, message: problem });
      return;
    }
    const { insurance_sum, deductible, premium } = option as KeptOption;
    const subjectivities = readSubjectivities(
      (option as Record<string, unknown>).subjectivities,
      `/quote_options/${index}/subjectivities`,
      rules,
      problems,
    );
    options.push({ insurance_sum, deductible, premium, subjectivities });
  });

  let decision: QuoteDecision = raw.length > 0 ? QuoteDecision.QUOTED : QuoteDecision.DECLINED;
  if (!absent(body.decision)) {
    if (typeof body.decision !== 'string' || !DECISIONS.includes(body.decision))
      problems.push({ pointer: '/decision', message: `must be ${DECISIONS.join(', ')}, got ${shown(body.decision)}` });
    else {
      decision = body.decision as QuoteDecision;
      if (decision === QuoteDecision.QUOTED && raw.length === 0)
        problems.push({ pointer: '/decision', message: 'QUOTED needs at least one option in quote_options' });
      if (decision !== QuoteDecision.QUOTED && raw.length > 0)
        problems.push({ pointer: '/decision', message: `${decision} comes with no options; quote_options must be empty` });
    }
  }

  let reason: string | null = null;
  if (!absent(body.reason)) {
    const issue = textProblem(body.reason, LIMITS.underwriterReason, rules);
    if (issue) problems.push({ pointer: '/reason', message: issue });
    else if (decision === QuoteDecision.QUOTED) problems.push({ pointer: '/reason', message: 'is for a decline or a referral' });
    else reason = stored(body.reason as string);
  }

  let currency: string | null = null;
  if (!absent(body.currency)) {
    if (typeof body.currency !== 'string' || !/^[A-Z]{3}$/.test(body.currency) || !CURRENCIES.has(body.currency))
      problems.push({ pointer: '/currency', message: `must be an ISO 4217 currency code such as EUR, got ${shown(body.currency)}` });
    else currency = body.currency;
  }

  let validUntil: Date | null = null;
  if (!absent(body.valid_until)) {
    const parsed = parseInstantOrDay(body.valid_until, rules.zone);
    const latest = rules.now.getTime() + LIMITS.quoteValidityDays * 86_400_000;
    if (!parsed)
      problems.push({
        pointer: '/valid_until',
        message: `must be an RFC 3339 timestamp with an offset or a date (YYYY-MM-DD, the end of that day in ${rules.zone}), got ${shown(body.valid_until)}`,
      });
    else if (parsed.getTime() > latest)
      problems.push({ pointer: '/valid_until', message: `must be within ${LIMITS.quoteValidityDays} days, got ${parsed.toISOString()}` });
    else if (rules.earliestValidity && parsed < rules.earliestValidity)
      problems.push({
        pointer: '/valid_until',
        message: `must not be before ${rules.earliestValidity.toISOString()}, got ${parsed.toISOString()}`,
      });
    else if (decision !== QuoteDecision.QUOTED) problems.push({ pointer: '/valid_until', message: 'is for a quote with options' });
    else validUntil = parsed;
  }
  if (problems.length > 0) return { problems };

  const { kept, notes, offeredElsewhere } = keep(options, requested);
  if (options.length > 0 && kept.length === 0)
    return {
      problems: [{ pointer: '', message: `no option is for a requested limit (offered ${offeredElsewhere.slice(0, 10).join(', ')})` }],
    };
  // Kept as sent, and EXPIRED (quote-answer-store.ts): the insurer did quote, for a time that has passed.
  if (validUntil && validUntil < rules.now)
    notes.push(`already expired when received at ${rules.now.toISOString()}: valid until ${validUntil.toISOString()}`);
  const subjectivityBytes = Buffer.byteLength(JSON.stringify(kept.map((option) => option.subjectivities ?? [])));
  if (subjectivityBytes > LIMITS.subjectivitiesBytesPerQuote)
    return {
      problems: [
        {
          pointer: '',
          message: `the subjectivities of the options kept must be at most ${LIMITS.subjectivitiesBytesPerQuote / 1024} KiB of JSON in all, got ${subjectivityBytes} bytes`,
        },
      ],
    };
  return {
    problems,
    answer: { decision, options: kept, validUntil, currency, reason, note: notes.length === 0 ? null : notes.join('; ') },
  };
}
