/**
 * The largest amount (insurance sum, deductible, premium, turnover) the gateway accepts, from brokers and
 * from insurers alike. Far above any real cover, and far enough below Number.MAX_VALUE that premiums with
 * tax, sums and comparisons stay finite.
 */
export const MAX_AMOUNT = 1e15;

/** A finite number in 0..MAX_AMOUNT. */
export const isAmount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= MAX_AMOUNT;
