import type { Tender } from '../tender.entity';
import { TENDER_FIELD_LIST, type Shape, type TenderFieldName } from './tender-fields';

/**
 * A tender's values as its declaration names and orders them: what the REST JSON shows an internal viewer, for the
 * code that has the values without the read model (the privacy export, the bench's reference server).
 */

/** The fields the customer erasure removes (GraphQL names): what an erasure must empty and an export must hold. */
export const personalTenderFields: readonly TenderFieldName[] = TENDER_FIELD_LIST.filter((field) => field.personal === 'erase').map(
  (field) => field.name,
);

const jsonOf = (value: unknown): unknown => (value instanceof Date ? value.toISOString() : (value ?? null));

function shapeValuesOf(shape: Shape<unknown>, object: unknown): Record<string, unknown> | null {
  if (object === null || object === undefined) return null;
  const values = object as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(shape.fields).map(([name, field]) => [
      field.spec,
      'fields' in field.kind ? shapeValuesOf(field.kind, values[name]) : jsonOf(values[name]),
    ]),
  );
}

/**
 * The tender's fields under their names in spec 2.1, in the declaration's order, from its values under their GraphQL
 * names (a relation's under its shape's): dates as ISO 8601, missing values null.
 */
export function representationOf(values: Readonly<Partial<Record<TenderFieldName, unknown>>>): Record<string, unknown> {
  return Object.fromEntries(
    TENDER_FIELD_LIST.map((field) => [
      field.spec,
      field.source === 'column' ? jsonOf(values[field.name]) : shapeValuesOf(field.shape, values[field.name]),
    ]),
  );
}

/** A tender's exported values: every declared field, read from the entity (its relations loaded), nothing withheld. */
export function exportedTenderValues(tender: Tender): Record<string, unknown> {
  const facts = {
    status: tender.status,
    awardedInsurerId: tender.awardedInsurer?.id ?? null,
    policyNumber: tender.policyNumber ?? null,
    policyConfirmedAt: tender.policyConfirmedAt ?? null,
    policyDocumentId: tender.policyDocumentId ?? null,
    policyPeriodStart: tender.policyPeriodStart ?? null,
    policyPeriodEnd: tender.policyPeriodEnd ?? null,
    renewalType: tender.renewalType ?? null,
    noticePeriodMonths: tender.noticePeriodMonths ?? null,
    noticeDeadline: tender.noticeDeadline ?? null,
  };
  return representationOf(
    Object.fromEntries(
      TENDER_FIELD_LIST.map((field) => [field.name, field.source === 'derived' ? field.value(facts) : tender[field.name as keyof Tender]]),
    ),
  );
}
