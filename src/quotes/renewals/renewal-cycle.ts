import { RenewalType } from '../../tenders';
import { RenewalReminder } from '../quote-events';
import { coverEndsAt, nextPeriodEnd, noticeDeadline } from './notice-deadline';

/** NOTICE_DEADLINE_APPROACHING comes this many days before the notice deadline. */
const APPROACHING_DAYS = 14;
const DAY_MS = 86_400_000;

/** What the sweep reads of a tender's renewal. */
export interface RenewalState {
  type: RenewalType;
  months: number;
  /** The last day of the period the deadline is for. */
  periodEnd: string;
  deadline: Date;
  /** How many reminders of the period were raised (0 to 3, RenewalReminder's order). */
  reminders: number;
  /** Notice of non-renewal was given: no reminder and no next year. */
  noticed: boolean;
}

const REMINDERS = [RenewalReminder.RENEWAL_DUE, RenewalReminder.NOTICE_DEADLINE_APPROACHING, RenewalReminder.NOTICE_DEADLINE_PASSED];

/** The period (and its deadline) that stands at `now`: a tacit renewal adds a year each time cover would have ended. */
export function periodAt(type: RenewalState['type'], months: number, lastDay: string, now: Date): { periodEnd: string; deadline: Date } {
  let periodEnd = lastDay;
  if (type === RenewalType.TACIT) while (coverEndsAt(periodEnd) <= now) periodEnd = nextPeriodEnd(periodEnd);
  return { periodEnd, deadline: noticeDeadline(periodEnd, months) };
}

/** When each reminder is due: RENEWAL_DUE `leadDays` before the deadline, APPROACHING 14 days before, PASSED after it. */
function reminderTimes(deadline: Date, leadDays: number): number[] {
  return [deadline.getTime() - leadDays * DAY_MS, deadline.getTime() - APPROACHING_DAYS * DAY_MS, deadline.getTime() + 1];
}

/** When the sweep next has work for a tender in `state`: its next reminder, or (tacit) the start of its next year; null: none. */
export function nextSweepAt(state: RenewalState, leadDays: number): Date | null {
  if (state.noticed) return null;
  if (state.reminders < REMINDERS.length) return new Date(reminderTimes(state.deadline, leadDays)[state.reminders]);
  return state.type === RenewalType.TACIT ? coverEndsAt(state.periodEnd) : null;
}

/**
 * One sweep of one tender at `now`: a tacit renewal moved on to the period that stands (its reminders start again), then
 * the reminders that have come due, each once. Reminders before the deadline are left out once it has passed: a late
 * RENEWAL_DUE would only mislead.
 */
export function sweepStep(state: RenewalState, leadDays: number, now: Date): { state: RenewalState; raised: RenewalReminder[] } {
  let next = state;
  if (!state.noticed && state.type === RenewalType.TACIT && coverEndsAt(state.periodEnd) <= now) {
    next = { ...state, ...periodAt(RenewalType.TACIT, state.months, state.periodEnd, now), reminders: 0 };
  }
  const raised: RenewalReminder[] = [];
  if (next.noticed) return { state: next, raised };
  const times = reminderTimes(next.deadline, leadDays);
  const passed = now.getTime() >= times[2];
  let reminders = next.reminders;
  for (let index = reminders; index < REMINDERS.length; index += 1) {
    if (now.getTime() < times[index]) break;
    if (index === 2 || !passed) raised.push(REMINDERS[index]);
    reminders = index + 1;
  }
  return { state: { ...next, reminders }, raised };
}
