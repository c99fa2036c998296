import { partyPersonalData, type PersonalData } from '../parties';
import { tenderPersonalData, tenderPersonsInCharge } from '../tenders';
import { riskPersonalData } from '../risk';
import { quotePersonalData } from '../quotes';
import { documentPersonalData } from '../documents';
import { messagePersonalData } from '../messages';
import { linkPersonalData } from '../links';
import { mailPersonalData } from '../mail';
import type { ErasureServices } from './privacy-context';

/**
 * Every feature's part of a customer's personal data (the `PersonalData` port, parties/personal-data/), in the
 * order the erasure runs them and the export shows them. A feature that comes to hold a customer's personal data
 * implements the port in its own room and joins this list; `test/personal-data.test.ts` checks every field each
 * part declares.
 */
export const PERSONAL_DATA: readonly PersonalData<ErasureServices>[] = [
  partyPersonalData(tenderPersonsInCharge),
  tenderPersonalData,
  riskPersonalData,
  quotePersonalData,
  documentPersonalData,
  messagePersonalData,
  linkPersonalData,
  mailPersonalData,
];
