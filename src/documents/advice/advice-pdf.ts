import { AdviceLanguage, type Advice } from './advice';
import { adviceComparisons } from './advice-comparison';
import { adviceText } from './templates/advice-text';

/**
 * The DejaVu fonts, embedded (subset) in every export: pdfkit's standard fonts are not embedded and know no glyphs past
 * Latin-1, so an insurer "Müller Versicherung" or a Polish or Czech name shows as it is on any reader.
 */
const FONT = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
const BOLD = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf');

const LOCALES: Record<AdviceLanguage, string> = { [AdviceLanguage.DE]: 'de-DE', [AdviceLanguage.EN]: 'en-GB' };
/** The client's dates are German calendar days, whatever the server's zone. */
const TIME_ZONE = 'Europe/Berlin';
/** Insurer columns per comparison table: more would squeeze the amounts past an A4 page's width. */
const INSURERS_PER_TABLE = 4;
const MARGIN = 50;
const FOOTER_HEIGHT = 30;

/** Numbers and dates as the client's language writes them: 1.234,50 € and 01.03.2026, or €1,234.50 and 1 March 2026. */
function formatsOf(language: AdviceLanguage) {
  const locale = LOCALES[language];
  const dates = new Intl.DateTimeFormat(
    locale,
    language === AdviceLanguage.DE
      ? { timeZone: TIME_ZONE, day: '2-digit', month: '2-digit', year: 'numeric' }
      : { timeZone: TIME_ZONE, day: 'numeric', month: 'long', year: 'numeric' },
  );
  const percent = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 2 });
  return {
    // Sums and deductibles are whole amounts as a rule: no ",00" after a million.
    amount: (value: number, currency: string, cents = true): string =>
      new Intl.NumberFormat(locale, {
        style: 'currency',
        currency,
        minimumFractionDigits: cents || !Number.isInteger(value) ? 2 : 0,
      }).format(value),
    date: (iso: string): string => dates.format(new Date(iso)),
    percent: (rate: number): string => percent.format(rate),
  };
}

/**
 * The PDF export: the same bytes for the same advice. Its one time is `asOf` (the proposal's state), also its creation
 * and modification date; pdfkit derives the file ID from that date and the info dictionary, and compresses with a
 * fixed level. The words come from the one label table (templates/advice-labels.ts), the formats from Intl.
 */
export async function advicePdf(advice: Advice): Promise<Buffer> {
  // Loaded with the first export: pdfkit and its fonts' modules take about 5 MB of a process's heap (docs/benchmark.md).
  const { default: PDFDocument } = await import('pdfkit');
  const { label, outcome } = adviceText(advice.language);
  const format = formatsOf(advice.language);
  const asOf = new Date(advice.asOf);
  const pdf = new PDFDocument({
    size: 'A4',
    margins: { top: MARGIN, left: MARGIN, right: MARGIN, bottom: MARGIN + FOOTER_HEIGHT },
    font: FONT,
    pdfVersion: '1.7',
    // Pages are kept until the end: the footer says how many there are.
    bufferPages: true,
    lang: advice.language === AdviceLanguage.DE ? 'de-DE' : 'en-GB',
    info: {
      Title: label('documentTitle', { tenderId: advice.tenderId }),
      Subject: label('documentSubject'),
      Producer: 'Tender Exchange gateway',
      Creator: 'Tender Exchange gateway',
      CreationDate: asOf,
      ModDate: asOf,
    },
  });
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });
  const heading = (text: string, size = 13) => pdf.moveDown().font(BOLD).fontSize(size).text(text).font(FONT).fontSize(10);

  // The title block: who advised whom, on what, as of when.
  pdf.font(BOLD).fontSize(16).text(label('title'));
  pdf.font(FONT).fontSize(10).moveDown(0.5);
  pdf.text(label('customer', { name: advice.customer.name }));
  pdf.text(label('broker', { company: advice.brokerCompany.name, person: advice.personInCharge.name }));
  pdf.text(label('product', { product: advice.product, lineOfBusiness: advice.lineOfBusiness }));
  pdf.text(label('asOf', { date: format.date(advice.asOf) }));
  pdf.text(label('taxRate', { rate: format.percent(advice.taxRate) }));
  pdf
    .fontSize(8)
    .fillColor('#555555')
    .text(label('tender', { tenderId: advice.tenderId }))
    .fillColor('black')
    .fontSize(10);

  heading(label('comparisons'));
  const comparisons = adviceComparisons(advice);
  if (comparisons.length === 0) pdf.text(label('noComparison'));
  for (const comparison of comparisons) {
    const { currency } = comparison;
    heading(
      label('comparison', {
        insuranceSum: format.amount(comparison.insuranceSum, currency, false),
        deductible: format.amount(comparison.deductible, currency, false),
      }),
      11,
    );
    for (let start = 0; start < comparison.columns.length; start += INSURERS_PER_TABLE) {
      const columns = comparison.columns.slice(start, start + INSURERS_PER_TABLE);
      const row = (name: string, cell: (column: (typeof columns)[number]) => string) => [
        { text: name, font: { src: BOLD } },
        ...columns.map((column) => ({ text: cell(column), align: { x: 'right' as const } })),
      ];
      pdf.moveDown(0.3);
      pdf.table({
        columnStyles: [130, ...columns.map(() => '*')],
        defaultStyle: { padding: [3, 4, 3, 4], border: 0.5, borderColor: '#999999' },
        data: [
          [
            { text: label('insurer'), font: { src: BOLD }, type: 'TH' },
            ...columns.map((column) => ({
              text: column.option.cheapest ? label('cheapest', { name: column.insurer }) : column.insurer,
              font: { src: BOLD },
              type: 'TH' as const,
              align: { x: 'right' as const },
            })),
          ],
          row(label('premium'), ({ option }) => format.amount(option.premium, currency)),
          row(label('tax'), ({ option }) => format.amount(option.tax, currency)),
          row(label('premiumWithTax'), ({ option }) => format.amount(option.premiumWithTax, currency)),
          row(label('validUntil'), ({ validUntil }) => (validUntil ? format.date(validUntil) : '–')),
          [
            { text: label('subjectivities'), font: { src: BOLD } },
            ...columns.map(({ option }) => ({
              text:
                option.subjectivities.length === 0
                  ? label('none')
                  : option.subjectivities.map((subjectivity) => label('subjectivity', subjectivity)).join('\n'),
            })),
          ],
        ],
      });
      pdf.x = MARGIN;
    }
  }

  heading(label('insurers'));
  if (advice.insurers.length === 0) pdf.text(label('noInsurer'));
  for (const insurer of advice.insurers) {
    pdf.text(label('outcome', { name: insurer.name, outcome: outcome(insurer.outcome), reason: insurer.reason }));
  }

  if (advice.advice) {
    heading(label('wishesAndNeeds'));
    pdf.text(advice.advice.wishesAndNeeds);
    heading(label('recommendation'));
    pdf.text(advice.advice.recommendation);
    heading(label('reasons'));
    pdf.text(advice.advice.reasons);
  } else {
    pdf.moveDown().text(label('noAdvice'));
  }

  // "Seite 1 von 2" at the foot of every page, in the bottom margin kept free for it.
  const { start, count } = pdf.bufferedPageRange();
  for (let index = start; index < start + count; index += 1) {
    pdf.switchToPage(index);
    const bottom = pdf.page.margins.bottom;
    pdf.page.margins.bottom = 0;
    pdf.fontSize(8).text(label('page', { page: index - start + 1, pages: count }), MARGIN, pdf.page.height - MARGIN, {
      width: pdf.page.width - 2 * MARGIN,
      align: 'center',
      lineBreak: false,
    });
    pdf.page.margins.bottom = bottom;
  }
  pdf.end();
  return done;
}
