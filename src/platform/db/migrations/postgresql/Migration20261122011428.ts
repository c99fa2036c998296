import { Migration } from '@mikro-orm/migrations';

/** Incremental sync for brokers: their tenders by updated_at without a sort. */
export class Migration20261122011428 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "tender_broker_updated_at_idx" on "tender" ("broker_company_id", "updated_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "tender_broker_updated_at_idx";`);
  }
}
