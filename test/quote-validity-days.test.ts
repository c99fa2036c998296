import { DateTime, IANAZone } from 'luxon';
import { describe, expect, it } from 'vitest';
import { endOfDayIn, parseInstantOrDay } from '../src/quotes/quote-answer';

/**
 * A `valid_until` date means the end of that day in QUOTE_VALIDITY_ZONE (docs/quotation.md, "Quote terms"). The end of a
 * day is checked against luxon over every zone the runtime knows, on every day around each of their offset changes in a
 * few years, and on the zones where a day begins at 01:00 or was skipped.
 */

interface Day {
  year: number;
  month: number;
  day: number;
}

const iso = ({ year, month, day }: Day) => `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;

/** luxon's own end of a day that exists in the zone: `endOf('day')` of the day's start. */
function luxonEndOfDay(zone: string, { year, month, day }: Day): DateTime | undefined {
  const start = DateTime.fromObject({ year, month, day }, { zone });
  // A day the zone skipped (luxon moves its start into the next day) has no end of its own: checked by name below.
  if (start.day !== day) return undefined;
  return start.endOf('day');
}

const DAY_MS = 86_400_000;

/**
 * The local days around every offset change of `zone` in `years` (the day before, of and after it), and the 1st of
 * every third month. Changes are found week by week and then to the hour by bisection (luxon's zone offsets).
 */
function daysToCheck(zone: string, years: readonly number[]): Day[] {
  const offsets = IANAZone.create(zone);
  const days = new Map<string, Day>();
  const add = (ms: number) => {
    const date = DateTime.fromMillis(ms, { zone });
    days.set(date.toISODate()!, { year: date.year, month: date.month, day: date.day });
  };
  for (const year of years) {
    for (const month of [1, 4, 7, 10]) days.set(iso({ year, month, day: 1 }), { year, month, day: 1 });
    const end = Date.UTC(year + 1, 0, 1);
    for (let from = Date.UTC(year, 0, 1); from < end; from += 7 * DAY_MS) {
      let [low, high] = [from, Math.min(from + 7 * DAY_MS, end)];
      if (offsets.offset(low) === offsets.offset(high)) continue;
      while (high - low > 3_600_000) {
        const middle = low + Math.floor((high - low) / 2);
        if (offsets.offset(middle) === offsets.offset(low)) low = middle;
        else high = middle;
      }
      for (const shift of [-DAY_MS, 0, DAY_MS]) add(low + shift);
      add(high);
    }
  }
  return [...days.values()];
}

describe('the end of a day in a time zone', () => {
  it('is the instant before the next day begins where DST starts at midnight, and for a day a zone skipped', () => {
    const cases: [zone: string, day: string, end: string][] = [
      // Clocks go from 00:00 -04:00 to 01:00 -03:00 on 11 September 2022: the 10th ends at 04:00Z, less a millisecond.
      ['America/Santiago', '2022-09-10', '2022-09-11T03:59:59.999Z'],
      ['America/Santiago', '2022-09-11', '2022-09-12T02:59:59.999Z'],
      // ... and back from 00:00 -03:00 to 23:00 -04:00 on 2 April 2022: the 1st ends at the first midnight.
      ['America/Santiago', '2022-04-01', '2022-04-02T02:59:59.999Z'],
      ['America/Santiago', '2022-04-02', '2022-04-03T03:59:59.999Z'],
      // Havana: 00:00 -05:00 → 01:00 -04:00 on 12 March 2023.
      ['America/Havana', '2023-03-11', '2023-03-12T04:59:59.999Z'],
      ['America/Havana', '2023-03-12', '2023-03-13T03:59:59.999Z'],
      // Apia went from -10:00 to +14:00 and skipped 30 December 2011: the 29th ends when the 31st begins.
      ['Pacific/Apia', '2011-12-29', '2011-12-30T09:59:59.999Z'],
      ['Pacific/Apia', '2011-12-30', '2011-12-30T09:59:59.999Z'],
      ['Pacific/Apia', '2011-12-31', '2011-12-31T09:59:59.999Z'],
      // Havana's DST ends at 01:00 -04:00 (back to 00:00 -05:00): the 5 November 2022 ends at the first midnight.
      ['America/Havana', '2022-11-05', '2022-11-06T03:59:59.999Z'],
      // An ordinary zone and season change, for scale.
      ['Europe/Berlin', '2026-03-29', '2026-03-29T21:59:59.999Z'],
      ['Europe/Berlin', '2026-10-25', '2026-10-25T22:59:59.999Z'],
      ['UTC', '2026-12-31', '2026-12-31T23:59:59.999Z'],
    ];
    for (const [zone, day, end] of cases) {
      const [year, month, date] = day.split('-').map(Number);
      expect(endOfDayIn(year, month, date, zone).toISOString(), `${zone} ${day}`).toBe(end);
      expect(parseInstantOrDay(day, zone)?.toISOString(), `${zone} ${day} as valid_until`).toBe(end);
    }
  });

  it('agrees with luxon for every zone the runtime knows, on the days around each offset change of 2011 and 2022 to 2024', () => {
    const zones = Intl.supportedValuesOf('timeZone');
    expect(zones.length).toBeGreaterThan(300);
    let checked = 0;
    const disagreements: string[] = [];
    for (const zone of zones) {
      for (const day of daysToCheck(zone, [2011, 2022, 2023, 2024])) {
        const expected = luxonEndOfDay(zone, day);
        if (!expected) continue;
        const end = endOfDayIn(day.year, day.month, day.day, zone).getTime();
        checked++;
        // The end is luxon's, still the day itself there, and the next millisecond is the next day's first.
        const there = DateTime.fromMillis(end, { zone });
        const after = DateTime.fromMillis(end + 1, { zone });
        const ok =
          end === expected.toMillis() &&
          there.toISODate() === iso(day) &&
          after.toISODate() !== iso(day) &&
          after.toMillis() === after.startOf('day').toMillis();
        if (!ok) disagreements.push(`${zone} ${iso(day)}: ${new Date(end).toISOString()}, luxon ${expected.toUTC().toISO()}`);
      }
    }
    expect(disagreements.slice(0, 20)).toEqual([]);
    // Every zone gives at least its four first days of a quarter in each year.
    expect(checked).toBeGreaterThan(zones.length * 16);
  }, 120_000);
});
