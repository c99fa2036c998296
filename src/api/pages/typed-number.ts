import type { PageLanguage } from './page-texts';

/**
 * A number as a person types it into a page's field (`inputmode="decimal"`, so any text arrives): `2272.50`,
 * `2 272,50`, `1.000.000` on a German page or `1,000,000` on an English one; a lone comma is a decimal point in
 * either. Undefined for anything else; what a number may be is the domain's rule, not the page's.
 */
export function readTypedNumber(text: string, lang: PageLanguage): number | undefined {
  let value = text.replace(/[\s\u00a0\u202f']/g, '');
  if (value === '') return undefined;
  const [group, decimal] = lang === 'de' ? ['.', ','] : [',', '.'];
  const grouped = new RegExp(`^[+-]?\\d{1,3}(\\${group}\\d{3})+(\\${decimal}\\d+)?$`);
  if (grouped.test(value)) value = value.split(group).join('');
  value = value.replace(',', '.');
  if (!/^[+-]?(\d+(\.\d+)?|\.\d+)$/.test(value)) return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
}
