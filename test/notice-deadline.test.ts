import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { coverEndsAt, deadlineDay, nextPeriodEnd, noticeDay, noticeDeadline } from '../src/quotes/renewals/notice-deadline';

/** Issue 42's date rule (docs/renewals.md): the notice deadline of a policy period, in Europe/Berlin. */

const berlin = (at: Date) => DateTime.fromJSDate(at, { zone: 'Europe/Berlin' });

describe('the notice deadline', () => {
  it.each([
    ['2026-12-31', 3, '2026-09-30'],
    ['2026-02-28', 1, '2026-01-31'],
    ['2026-03-30', 1, '2026-02-28'],
    // A leap year: 30 March, one month, is 29 February (31 February lacks, so 1 March is the notice day).
    ['2028-03-30', 1, '2028-02-29'],
    ['2028-02-29', 1, '2028-01-31'],
    ['2026-06-30', 2, '2026-04-30'],
    ['2026-08-30', 3, '2026-05-30'],
  ])('a period ending on %s with %i months of notice ends on %s at midnight in Berlin', (lastDay, months, deadline) => {
    const at = berlin(noticeDeadline(lastDay, months));
    expect(deadlineDay(noticeDeadline(lastDay, months))).toBe(deadline);
    expect(at.toFormat('HH:mm:ss.SSS')).toBe('23:59:59.999');
  });

  it('agrees with luxon month arithmetic (a clamped day moved to the next first) for every last day of 2024-2030', () => {
    let checked = 0;
    for (let day = DateTime.fromISO('2024-01-01', { zone: 'Europe/Berlin' }); day.year <= 2030; day = day.plus({ days: 1 })) {
      const end = day.plus({ days: 1 });
      for (const months of [1, 2, 3]) {
        const back = end.minus({ months });
        // luxon clamps 31 → 30 (or 28/29): a day the month lacks is the next month's first instead.
        const expected = back.day === end.day ? back : back.plus({ months: 1 }).startOf('month');
        const deadline = noticeDeadline(day.toISODate()!, months);
        expect(noticeDay(day.toISODate()!, months)).toBe(expected.toISODate());
        expect(deadline.getTime()).toBe(expected.startOf('day').toMillis() - 1);
        // Never more than the notice period before cover ends, and never a day less than its calendar months.
        expect(deadline.getTime()).toBeLessThan(coverEndsAt(day.toISODate()!).getTime());
        checked += 1;
      }
    }
    expect(checked).toBe(3 * 2557);
  });

  it('keeps the end of the day in Berlin across the DST changes, whatever the UTC offset', () => {
    // Spring forward on 29 March 2026: the deadline that day is 23:59:59.999 CEST (UTC+2).
    expect(noticeDeadline('2026-04-29', 1).toISOString()).toBe('2026-03-29T21:59:59.999Z');
    // The day before, still CET (UTC+1).
    expect(noticeDeadline('2026-04-28', 1).toISOString()).toBe('2026-03-28T22:59:59.999Z');
    // Fall back on 25 October 2026: the deadline that day is 23:59:59.999 CET (UTC+1), a 25-hour day.
    expect(noticeDeadline('2027-01-25', 3).toISOString()).toBe('2026-10-25T22:59:59.999Z');
    expect(noticeDeadline('2027-01-24', 3).toISOString()).toBe('2026-10-24T21:59:59.999Z');
  });

  it('follows a tacit renewal into the next year, a leap day included', () => {
    expect(nextPeriodEnd('2026-12-31')).toBe('2027-12-31');
    expect(nextPeriodEnd('2027-02-28')).toBe('2028-02-29');
    expect(nextPeriodEnd('2028-02-29')).toBe('2029-02-28');
    expect(deadlineDay(noticeDeadline(nextPeriodEnd('2026-12-31'), 3))).toBe('2027-09-30');
    expect(coverEndsAt('2026-12-31').toISOString()).toBe('2026-12-31T23:00:00.000Z');
  });
});
