/** An erased string: empty, so every field keeps the specification's type (spec 2.1 allows empty address parts). */
export const ERASED = '';

/** A currency code names no one and gives an amount its meaning: kept beside the amounts. */
const isCurrencyCode = (key: string, value: string) => key === 'currency' && /^[A-Z]{3}$/.test(value);

/**
 * Risk information without what could identify anyone: every string is emptied (free text, names, websites,
 * types of business), numbers, booleans and the structure stay (turnover amounts, with their currency codes).
 */
export function erasedJson(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return isCurrencyCode(key, value) ? value : ERASED;
  if (Array.isArray(value)) return value.map((item) => erasedJson(item));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, erasedJson(item, name)]));
  }
  return value;
}
