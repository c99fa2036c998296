import type { EntityManager } from '@mikro-orm/core';
import { ERASED, erasedJson, groupedBy, type PersonalData, type PersonalField } from '../../parties';
import { kinds } from '../shape/field-kinds';
import { TENDER_FIELD_LIST } from '../shape/tender-fields';
import { exportedTenderValues } from '../shape/tender-values';
import { TenderHistoryEntry } from '../tender-history-entry.entity';
import { Tender } from '../tender.entity';

/**
 * The tender's own columns its shape declares personal (`personal: 'erase'`): emptied here, shown by the export from
 * the shape. Its personal relations (the customer, the person in charge) are parties' part.
 */
const PERSONAL_COLUMNS = TENDER_FIELD_LIST.filter((field) => field.source === 'column' && field.personal === 'erase');

const FIELDS: readonly PersonalField[] = [
  { entity: 'Tender', property: 'riskInformation' },
  ...PERSONAL_COLUMNS.map((field) => ({ entity: 'Tender', property: field.name })),
  // The broker's reasons at a renewal (docs/renewals.md): free text that may name people.
  { entity: 'Tender', property: 'renewalDecisionReason' },
  { entity: 'Tender', property: 'nonRenewalReason' },
  { entity: 'TenderHistoryEntry', property: 'reason' },
];

/**
 * The tenders' part: the strings of their risk information, their renewal reasons and their history's reasons; everything else of a tender
 * stays (docs/privacy.md, "What is erased"). The erasure also marks the tenders erased (`erased_at`, the first time)
 * and moves their version on. The export shows each tender's fields, its person in charge and its history.
 */
export const tenderPersonalData: PersonalData = {
  fields: FIELDS,
  async erase(tx, scope) {
    const tenders = await tx.find(Tender, { customer: scope.customerId }, { fields: ['id', 'riskInformation'], orderBy: { id: 'asc' } });
    for (const tender of tenders) {
      if (tender.riskInformation) tender.riskInformation = erasedJson(tender.riskInformation) as Record<string, unknown>;
    }
    await tx.flush();
    if (PERSONAL_COLUMNS.length > 0) {
      const erased = Object.fromEntries(
        PERSONAL_COLUMNS.map((field) => [field.name, 'kind' in field && field.kind === kinds.text ? ERASED : null]),
      );
      await tx.nativeUpdate(Tender, { customer: scope.customerId }, erased);
    }
    // The version too: a status change that read a tender before this commit fails its optimistic lock (CONFLICT)
    // rather than storing a reason on an erased tender (docs/privacy.md "After the erasure").
    const at = tx.getPlatform().processDateProperty(scope.at);
    await execute(tx, 'update tender set erased_at = coalesce(erased_at, ?), updated_at = ?, version = version + 1 where customer_id = ?', [
      at,
      at,
      scope.customerId,
    ]);
    await execute(
      tx,
      `update tender set renewal_decision_reason = case when renewal_decision_reason is null then null else ? end,
         non_renewal_reason = case when non_renewal_reason is null then null else ? end where customer_id = ?`,
      [ERASED, ERASED, scope.customerId],
    );
    await execute(
      tx,
      'update tender_history_entry set reason = ? where reason is not null and tender_id in (select id from tender where customer_id = ?)',
      [ERASED, scope.customerId],
    );
    return {};
  },
  async export(em, scope) {
    const ids = [...scope.tenderIds];
    const [tenders, history] = await Promise.all([
      em.find(
        Tender,
        { id: { $in: ids } },
        { populate: ['lineOfBusiness', 'customer', 'brokerCompany', 'personInCharge', 'riskInformation'] },
      ),
      em.find(TenderHistoryEntry, { tender: { $in: ids } }, { orderBy: { at: 'asc', id: 'asc' } }),
    ]);
    const historyOf = groupedBy(history, (entry) => entry.tender.id);
    return {
      tenders: new Map(tenders.map((tender) => [tender.id, exported(tender, historyOf(tender.id))])),
    };
  },
};

/**
 * Every field the tender's shape declares, in its REST names and order (`exportedTenderValues`), then what the
 * representation does not show: the risk information, the awarded insurer and the history.
 */
const exported = (tender: Tender, history: readonly TenderHistoryEntry[]) => ({
  ...exportedTenderValues(tender),
  risk_information: tender.riskInformation ?? null,
  awarded_insurer_id: tender.awardedInsurer?.id ?? null,
  renewal_decision_reason: tender.renewalDecisionReason ?? null,
  non_renewal_reason: tender.nonRenewalReason ?? null,
  history: history.map((entry) => ({
    at: entry.at.toISOString(),
    actor: entry.actor,
    actor_role: entry.actorRole,
    from_status: entry.fromStatus ?? null,
    to_status: entry.toStatus,
    reason: entry.reason ?? null,
  })),
});

function execute(tx: EntityManager, sql: string, params: unknown[]) {
  return tx.getConnection().execute(sql, params, 'run', tx.getTransactionContext());
}
