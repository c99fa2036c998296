import { Entity, Enum, Index, PrimaryKey, Property } from '@mikro-orm/core';
import { AccessSurface, Role } from '../../access';
import { newId } from '../../platform/db/ids';

/**
 * One read (or, within a minute, several reads counted) of a tender's personal data by a client outside the
 * company. Append-only: no API changes or deletes a row; only the retention sweep removes rows older than
 * ACCESS_LOG_RETENTION. The tender and the party are plain ids, not relations: the log outlives what it names.
 */
@Entity({ tableName: 'access_log_entry' })
@Index({ name: 'access_log_entry_tender_at_idx', properties: ['tenderId', 'at'] })
@Index({ name: 'access_log_entry_client_at_idx', properties: ['appId', 'at'] })
@Index({ name: 'access_log_entry_at_idx', properties: ['at'] })
export class AccessLogEntry {
  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @Property({ type: 'string', length: 36 })
  tenderId!: string;

  /** The first read of the minute this row counts. */
  @Property({ type: Date, length: 3 })
  at!: Date;

  @Property({ type: 'string', length: 64 })
  appId!: string;

  @Enum({ items: () => Role, type: 'string', length: 16 })
  role!: Role;

  /** The client's insurer or broker company. */
  @Property({ type: 'string', length: 36 })
  partyId!: string;

  @Enum({ items: () => AccessSurface, type: 'string', length: 16 })
  surface!: AccessSurface;

  /** The GraphQL field or the REST route. */
  @Property({ type: 'string', length: 200 })
  operation!: string;

  /** Reads of the same tender by the same client on the same operation within the minute from `at`. */
  @Property({ type: 'integer' })
  count!: number;
}
