import { Migration } from '@mikro-orm/migrations';

export class Migration20261122024545 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "rate_limit_counter" ("key" varchar(300) not null, "hits" int not null, "resets_at" bigint not null, constraint "rate_limit_counter_pkey" primary key ("key"));`,
    );
    this.addSql(`create index "rate_limit_counter_resets_at_index" on "rate_limit_counter" ("resets_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "rate_limit_counter" cascade;`);
  }
}
