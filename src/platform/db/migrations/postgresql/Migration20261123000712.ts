import { Migration } from '@mikro-orm/migrations';

export class Migration20261123000712 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "insurer_check" ("id" varchar(36) not null, "insurer_id" varchar(36) not null, "insurer_reference" varchar(200) null, "started_at" timestamptz(3) not null, "expires_at" timestamptz(3) not null, "callbacks" int not null default 0, "first_callback_at" timestamptz(3) null, "last_callback_at" timestamptz(3) null, constraint "insurer_check_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "insurer_check_insurer_reference_idx" on "insurer_check" ("insurer_id", "insurer_reference");`);

    this.addSql(
      `alter table "insurer_check" add constraint "insurer_check_insurer_id_foreign" foreign key ("insurer_id") references "insurer" ("id") on update cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "insurer_check" cascade;`);
  }
}
