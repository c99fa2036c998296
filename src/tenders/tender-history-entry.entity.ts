import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/core';
import { Role } from '../access';
import { newId } from '../platform/db/ids';
import { Tender } from './tender.entity';
import { TenderStatus } from './tender-status';
import { LIMITS } from '../platform/validation/rules';

/**
 * One status change of a tender: who, when, from, to, why; or an advice export (§61 VVG: which comparison the broker
 * showed its client), where the status stays as it was and the `advice*` columns say which document, with which
 * SHA-256. Appended, never changed.
 */
@Entity({ tableName: 'tender_history_entry' })
@Index({ name: 'tender_history_entry_tender_at_idx', properties: ['tender', 'at'] })
export class TenderHistoryEntry {
  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @ManyToOne({ entity: () => Tender, index: false })
  tender!: Tender;

  @Property({ type: Date, length: 3 })
  at!: Date;

  /** The app_id of the API client that made the change. */
  @Property({ type: 'string', length: 64 })
  actor!: string;

  @Enum({ items: () => Role, type: 'string', length: 16 })
  actorRole!: Role;

  /** Null for the creation of the tender. */
  @Enum({ items: () => TenderStatus, type: 'string', length: 32, nullable: true })
  fromStatus?: TenderStatus | null;

  @Enum({ items: () => TenderStatus, type: 'string', length: 32 })
  toStatus!: TenderStatus;

  @Property({ type: 'string', length: LIMITS.reason, nullable: true })
  reason?: string | null;

  /**
   * A step of the binding that is not a status change of its own (docs/lifecycle.md, "Binding"): COVER_ACCEPTED,
   * COVER_DECLINED (with the transition back), SUBJECTIVITY_RESPONDED, SUBJECTIVITY_ACCEPTED, SUBJECTIVITY_REJECTED,
   * SUBJECTIVITY_WAIVED; or of the renewal (docs/renewals.md): RENEWAL_TERMS_SET, RENEWAL_DECIDED, NON_RENEWAL_NOTIFIED,
   * RENEWED; null for a plain status change.
   */
  @Property({ type: 'string', length: 32, nullable: true })
  step?: string | null;

  /** The subjectivity a SUBJECTIVITY_* step is about. Not a relation: the record outlives it. */
  @Property({ type: 'string', length: 36, nullable: true })
  subjectivityId?: string | null;

  /** The insurer a step concerns: other insurers do not see it. */
  @Property({ type: 'string', length: 36, nullable: true })
  insurerId?: string | null;

  /** An advice export: its format (PDF, CSV, JSON); null for a status change. */
  @Property({ type: 'string', length: 8, nullable: true })
  adviceFormat?: string | null;

  /** An advice export: the ADVICE document it stored. Not a relation: the record outlives the document's erasure. */
  @Property({ type: 'string', length: 36, nullable: true })
  adviceDocumentId?: string | null;

  /** An advice export: the SHA-256 (hex) of the bytes the broker's client was given. */
  @Property({ type: 'string', length: 64, nullable: true })
  adviceSha256?: string | null;
}
