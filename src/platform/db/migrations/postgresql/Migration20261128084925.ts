import { Migration } from '@mikro-orm/migrations';

export class Migration20261128084925 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "customer_erasure" drop constraint "customer_erasure_customer_unique";`);

    this.addSql(`create index "customer_erasure_customer_idx" on "customer_erasure" ("customer_id", "erased_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "customer_erasure_customer_idx";`);

    this.addSql(`alter table "customer_erasure" add constraint "customer_erasure_customer_unique" unique ("customer_id");`);
  }
}
