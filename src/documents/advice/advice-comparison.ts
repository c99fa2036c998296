import type { Advice } from './advice';

type Option = Advice['insurers'][number]['options'][number];

/** One comparison table: the options for one insurance sum and deductible (in one currency), an insurer per column. */
export interface AdviceComparison {
  insuranceSum: number;
  deductible: number;
  currency: string;
  columns: { insurer: string; validUntil: string | null; option: Option }[];
}

/**
 * The advice's options grouped by insurance sum, deductible and currency, in the order of the amounts; the columns in
 * the order of the insurers (the proposal's). Only quoted options: a declined or expired quote has none to compare,
 * and is listed with its outcome instead.
 */
export function adviceComparisons(advice: Advice): AdviceComparison[] {
  const byPair = new Map<string, AdviceComparison>();
  for (const insurer of advice.insurers) {
    if (insurer.outcome !== 'QUOTED') continue;
    for (const option of insurer.options) {
      const key = `${option.currency}/${option.insuranceSum}/${option.deductible}`;
      let comparison = byPair.get(key);
      if (!comparison) {
        comparison = { insuranceSum: option.insuranceSum, deductible: option.deductible, currency: option.currency, columns: [] };
        byPair.set(key, comparison);
      }
      comparison.columns.push({ insurer: insurer.name, validUntil: insurer.validUntil, option });
    }
  }
  return [...byPair.values()].sort(
    (a, b) => a.currency.localeCompare(b.currency, 'en') || a.insuranceSum - b.insuranceSum || a.deductible - b.deductible,
  );
}
