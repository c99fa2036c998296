import { Migration } from '@mikro-orm/migrations';

export class Migration20261126023346 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "quote_request" add column "traceparent" varchar(64) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "quote_request" drop column "traceparent";`);
  }
}
