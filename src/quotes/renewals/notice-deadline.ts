import { DateTime } from 'luxon';

/** The market's time zone: a notice deadline ends at midnight there (docs/renewals.md). */
const MARKET_ZONE = 'Europe/Berlin';

/** A day as `YYYY-MM-DD`. */
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

function dayOf(text: string): DateTime {
  const match = DAY.exec(text);
  const day = match && DateTime.fromObject({ year: +match[1], month: +match[2], day: +match[3] }, { zone: MARKET_ZONE });
  if (!day?.isValid) throw new Error(`not a day: ${text}`);
  return day.startOf('day');
}

const dayText = (day: DateTime): string => day.toISODate()!;

/**
 * The day notice must have reached the insurer before: `months` calendar months back from the day cover ends at the
 * start of. A day the month lacks (30 February) moves to that month's next day that exists, the first of the month
 * after (so the rule never lets a period shrink, as clamping to 28 February would).
 */
export function noticeDay(lastDay: string, months: number): string {
  const end = dayOf(lastDay).plus({ days: 1 });
  const monthIndex = end.year * 12 + (end.month - 1) - months;
  const year = Math.floor(monthIndex / 12);
  const month = (monthIndex % 12) + 1;
  const first = DateTime.fromObject({ year, month, day: 1 }, { zone: MARKET_ZONE });
  const target = end.day > first.daysInMonth! ? first.plus({ months: 1 }) : first.set({ day: end.day });
  return dayText(target);
}

/**
 * The notice deadline of a policy period ending on `lastDay` (its last day, included) with `months` of notice: the end
 * of the day before the notice day, in Europe/Berlin (the last millisecond before that day's midnight, whatever its
 * offset after a DST change). Last day 31 December, three months: 30 September 23:59:59.999 in Berlin.
 */
export function noticeDeadline(lastDay: string, months: number): Date {
  return dayOf(noticeDay(lastDay, months)).minus({ milliseconds: 1 }).toJSDate();
}

/** The deadline's day in Europe/Berlin (`YYYY-MM-DD`), as people read it. */
export function deadlineDay(deadline: Date): string {
  return dayText(DateTime.fromJSDate(deadline, { zone: MARKET_ZONE }));
}

/** The instant cover of a period ending on `lastDay` ends: the start of the next day in Europe/Berlin. */
export function coverEndsAt(lastDay: string): Date {
  return dayOf(lastDay).plus({ days: 1 }).toJSDate();
}

/** The last day of the year a tacit renewal adds after the period ending on `lastDay`. */
export function nextPeriodEnd(lastDay: string): string {
  return dayText(dayOf(lastDay).plus({ days: 1 }).plus({ years: 1 }).minus({ days: 1 }));
}
