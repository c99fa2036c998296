import type { PersonsInCharge } from '../../parties';
import { Tender } from '../tender.entity';

/** Who is in charge of which tender, for parties' part of an erasure (its stand-ins). */
export const tenderPersonsInCharge: PersonsInCharge = {
  async inChargeElsewhere(tx, customerId, personId) {
    return (await tx.count(Tender, { personInCharge: personId, customer: { $ne: customerId } })) > 0;
  },
  async replace(tx, customerId, personId, standInId) {
    await tx.nativeUpdate(Tender, { customer: customerId, personInCharge: personId }, { personInCharge: standInId });
  },
};
