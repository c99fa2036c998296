import PDFDocument from 'pdfkit';
import { formatAmount, type Advice } from './advice';

/**
 * The DejaVu fonts, embedded (subset) in every export: pdfkit's standard fonts are not embedded and know no glyphs past
 * Latin-1, so an insurer "Müller Versicherung" or a Polish or Czech name shows as it is on any reader.
 */
const FONT = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
const BOLD = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf');

const OUTCOMES: Record<string, string> = {
  QUOTED: 'quoted',
  DECLINED: 'declined',
  REFERRED: 'referred to the underwriter',
  EXPIRED: 'quoted, validity ended',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  AWAITING_MANUAL: 'no answer yet (insurer without an API)',
};

/** What the client reads for an insurer's outcome; every state still in flight reads as "no answer yet". */
const outcomeText = (outcome: string): string => OUTCOMES[outcome] ?? 'no answer yet';

const money = (amount: number, currency: string): string => `${formatAmount(amount)} ${currency}`;

/**
 * The PDF export: the same bytes for the same advice. Its one time is `asOf` (the proposal's state), also its creation
 * and modification date; pdfkit derives the file ID from that date and the info dictionary, and compresses with a
 * fixed level.
 */
export function advicePdf(advice: Advice): Promise<Buffer> {
  const asOf = new Date(advice.asOf);
  const pdf = new PDFDocument({
    size: 'A4',
    margin: 50,
    font: FONT,
    pdfVersion: '1.7',
    info: {
      Title: `Proposal comparison, tender ${advice.tenderId}`,
      Subject: 'Advice record (§61 VVG): the offers as shown to the client',
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

  pdf.font(BOLD).fontSize(16).text('Proposal comparison');
  pdf.font(FONT).fontSize(10).moveDown(0.5);
  pdf.text(`Tender: ${advice.tenderId}`);
  pdf.text(`Product: ${advice.product}`);
  pdf.text(`As of: ${advice.asOf}`);
  pdf.text(`Tax rate: ${(advice.taxRate * 100).toFixed(2)} %`);

  pdf.moveDown().font(BOLD).fontSize(13).text('Insurers asked');
  if (advice.insurers.length === 0) pdf.font(FONT).fontSize(10).text('No insurer was asked for a quote.');
  for (const insurer of advice.insurers) {
    pdf.moveDown(0.5).font(BOLD).fontSize(11).text(insurer.name);
    pdf.font(FONT).fontSize(10);
    pdf.text(`Outcome: ${outcomeText(insurer.outcome)}${insurer.reason ? `; reason: ${insurer.reason}` : ''}`);
    if (insurer.validUntil) pdf.text(`Valid until: ${insurer.validUntil}`);
    for (const option of insurer.options) {
      pdf.text(
        `Insurance sum ${money(option.insuranceSum, option.currency)}, deductible ${money(option.deductible, option.currency)}: ` +
          `premium ${money(option.premium, option.currency)}, tax ${money(option.tax, option.currency)}, ` +
          `premium with tax ${money(option.premiumWithTax, option.currency)}${option.cheapest ? ' (cheapest)' : ''}`,
        { indent: 12 },
      );
      for (const subjectivity of option.subjectivities) {
        pdf.text(`Subjectivity (${subjectivity.stage === 'PRE_BIND' ? 'before binding' : 'after binding'}): ${subjectivity.text}`, {
          indent: 24,
        });
      }
    }
  }

  pdf.moveDown().font(BOLD).fontSize(13).text('Cheapest per insurance sum and deductible');
  pdf.font(FONT).fontSize(10);
  if (advice.cheapest.length === 0) pdf.text('No option can be ordered.');
  for (const best of advice.cheapest) {
    pdf.text(
      `${money(best.insuranceSum, best.currency)} / ${money(best.deductible, best.currency)}: ${best.insurer}, ` +
        `premium with tax ${money(best.premiumWithTax, best.currency)}`,
    );
  }
  pdf.end();
  return done;
}
