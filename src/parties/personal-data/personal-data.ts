import type { EntityManager } from '@mikro-orm/core';

/**
 * A field that holds personal data: its entity's class name and its property, a path into it where only part of the
 * value is (`address.street` in an embeddable, `subjectivities[].text` in each item of a JSON list); every string at
 * the path is personal (a JSON object's strings at any depth). Each feature declares its own;
 * `test/personal-data.test.ts` fills every declared field, then finds it in the export and empty after an erasure,
 * so a field declared and left out of `erase` or `export` fails it.
 */
export interface PersonalField {
  entity: string;
  property: string;
  /** False where the export does not show it (kept as it was before the port; docs/privacy.md, "Export"). */
  exported?: false;
}

/** A tender of the customer being erased, as every feature's part needs it. */
interface ErasedTender {
  id: string;
  brokerCompanyId: string;
  personInChargeId: string;
}

/** What an erasure covers: runs in its transaction, after the customer's row was claimed. */
interface ErasureScope {
  customerId: string;
  /** The customer's tenders, by id. */
  tenders: readonly ErasedTender[];
  /** This erasure's time. */
  at: Date;
  /** The customer's first erasure's time (`at` unless it was erased before): what it and its tenders keep. */
  erasedAt: Date;
}

/** What one feature's part of an erasure did: counts for the erasure's record, and work for after the commit. */
export interface ErasedPart<Services> {
  /** Persons in charge emptied or replaced by a stand-in. */
  persons?: number;
  /** Documents deleted. */
  documents?: number;
  /** Outside the database (bytes in a store), once the erasure committed; its failure is not the erasure's. */
  afterCommit?: (em: EntityManager, services: Services) => Promise<unknown>;
}

/** One page of the customer's tenders, oldest first: what an export part shows. */
interface ExportScope {
  customerId: string;
  tenderIds: readonly string[];
}

/** One feature's part of an export, in snake case as the export shows it. */
interface ExportedPart {
  /** Keys of the document's top level (after `exported_at`). */
  top?: Record<string, unknown>;
  /** Keys of each tender's object, by tender id, in the order the part gives them. */
  tenders?: ReadonlyMap<string, Record<string, unknown>>;
}

/**
 * The port every feature holding a customer's personal data implements in its own room (`<feature>/personal-data/`),
 * exported through its front door; privacy runs the erasure and the export over the list of them (docs/privacy.md).
 * `Services` is what the part needs after the commit (the document store), given by the erasure's caller.
 */
export interface PersonalData<Services = unknown> {
  /** The fields it holds that are personal: `erase` empties them, `export` shows them. */
  readonly fields: readonly PersonalField[];
  erase(tx: EntityManager, scope: ErasureScope): Promise<ErasedPart<Services>>;
  export(em: EntityManager, scope: ExportScope): Promise<ExportedPart>;
}

/**
 * The persons in charge of tenders, as parties' part needs them: who puts persons in charge (tenders, above parties)
 * implements it, and the privacy list hands it to parties.
 */
export interface PersonsInCharge {
  /** Whether the person is in charge of another customer's tenders too. */
  inChargeElsewhere(tx: EntityManager, customerId: string, personId: string): Promise<boolean>;
  /** Puts `standInId` in charge of the customer's tenders `personId` was in charge of. */
  replace(tx: EntityManager, customerId: string, personId: string, standInId: string): Promise<void>;
}

/** Items grouped by a key (a tender's id, a quote request's): a key without any gets an empty list. */
export function groupedBy<T>(items: readonly T[], keyOf: (item: T) => string): (key: string) => T[] {
  const grouped = new Map<string, T[]>();
  for (const item of items) grouped.set(keyOf(item), [...(grouped.get(keyOf(item)) ?? []), item]);
  return (key: string) => grouped.get(key) ?? [];
}
