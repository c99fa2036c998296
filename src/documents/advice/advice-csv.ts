import type { Advice } from './advice';

const HEADER = [
  'as_of',
  'tender_id',
  'insurer',
  'outcome',
  'reason',
  'valid_until',
  'insurance_sum',
  'deductible',
  'premium',
  'tax',
  'premium_with_tax',
  'currency',
  'cheapest',
  'subjectivities',
  'language',
  'customer',
  'broker_company',
  'person_in_charge',
  'wishes_and_needs',
  'recommendation',
  'reasons',
];

/**
 * A field of RFC 4180: quoted when it holds a comma, quote or line break. Text a spreadsheet would run as a formula
 * (starting with = + - @, a tab or a carriage return) gets a leading apostrophe (OWASP's CSV injection advice).
 */
function field(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * The CSV export: a header row, one row per option, and one per insurer without options; CRLF line ends. The parties
 * and the advice repeat on every row: each row reads alone, as a spreadsheet filter shows it.
 */
export function adviceCsv(advice: Advice): Buffer {
  const rows: string[][] = [HEADER];
  const given = [
    advice.language,
    advice.customer.name,
    advice.brokerCompany.name,
    advice.personInCharge.name,
    advice.advice?.wishesAndNeeds ?? '',
    advice.advice?.recommendation ?? '',
    advice.advice?.reasons ?? '',
  ];
  // No insurer asked yet: one row still carries the advice.
  if (advice.insurers.length === 0) rows.push([advice.asOf, advice.tenderId, ...HEADER.slice(2, -given.length).map(() => ''), ...given]);
  for (const insurer of advice.insurers) {
    const common = [advice.asOf, advice.tenderId, insurer.name, insurer.outcome, insurer.reason ?? '', insurer.validUntil ?? ''];
    if (insurer.options.length === 0) rows.push([...common, '', '', '', '', '', insurer.currency ?? '', '', '', ...given]);
    for (const option of insurer.options) {
      rows.push([
        ...common,
        // Numbers as plain decimals: what a parser reads back; the grouped form is for people (the PDF).
        String(option.insuranceSum),
        String(option.deductible),
        option.premium.toFixed(2),
        option.tax.toFixed(2),
        option.premiumWithTax.toFixed(2),
        option.currency,
        option.cheapest ? 'yes' : 'no',
        option.subjectivities.map((subjectivity) => `${subjectivity.stage} ${subjectivity.status}: ${subjectivity.text}`).join('; '),
        ...given,
      ]);
    }
  }
  return Buffer.from(rows.map((row) => row.map(field).join(',')).join('\r\n') + '\r\n', 'utf8');
}
