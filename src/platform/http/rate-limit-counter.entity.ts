import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * One fixed-window request counter per rate-limited key (a client or an address), shared by every gateway
 * instance on the database. Rows are reused window after window; stale ones are swept.
 */
@Entity({ tableName: 'rate_limit_counter' })
export class RateLimitCounter {
  @PrimaryKey({ type: 'string', length: 300 })
  key!: string;

  @Property({ type: 'integer' })
  hits!: number;

  /** End of the counter's window, epoch milliseconds: windows are aligned, so every instance agrees on them. */
  @Property({ type: 'bigint', index: true })
  resetsAt!: string;
}
