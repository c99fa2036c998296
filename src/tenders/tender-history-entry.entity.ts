import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/core';
import { Role } from '../access';
import { newId } from '../platform/db/ids';
import { Tender } from './tender.entity';
import { TenderStatus } from './tender-status';
import { LIMITS } from '../platform/validation/rules';

/** One status change of a tender: who, when, from, to, why. Appended, never changed. */
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
}
