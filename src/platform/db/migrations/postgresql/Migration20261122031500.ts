import { Migration } from '@mikro-orm/migrations';

/**
 * Rate-limit counters skip the write-ahead log: every request writes one, and a commit that waits for a WAL
 * flush cost more than the rest of a small request. After a crash the table starts empty, which only forgives
 * the current window's hits.
 */
export class Migration20261122031500 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "rate_limit_counter" set unlogged;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "rate_limit_counter" set logged;`);
  }
}
