import { Migration } from '@mikro-orm/migrations';

export class Migration20261126031253 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "access_log_entry" ("id" varchar(36) not null, "tender_id" varchar(36) not null, "at" timestamptz(3) not null, "app_id" varchar(64) not null, "role" text check ("role" in ('insurer', 'broker', 'internal', 'analyst')) not null, "party_id" varchar(36) not null, "surface" text check ("surface" in ('REST', 'GRAPHQL', 'DOCUMENT')) not null, "operation" varchar(200) not null, "count" int not null, constraint "access_log_entry_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "access_log_entry_at_idx" on "access_log_entry" ("at");`);
    this.addSql(`create index "access_log_entry_client_at_idx" on "access_log_entry" ("app_id", "at");`);
    this.addSql(`create index "access_log_entry_tender_at_idx" on "access_log_entry" ("tender_id", "at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "access_log_entry" cascade;`);
  }
}
