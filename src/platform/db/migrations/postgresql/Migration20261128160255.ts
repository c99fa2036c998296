import { Migration } from '@mikro-orm/migrations';

/** Clarification threads (docs/people.md): one message per row, a thread read by its tender, insurer and time. */
export class Migration20261128160255 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "tender_message" ("id" varchar(36) not null, "tender_id" varchar(36) not null, "insurer_id" varchar(36) not null, "author_role" varchar(16) not null, "author_app_id" varchar(200) not null, "text" text not null, "document_ids" jsonb not null, "requests_information" boolean not null default false, "created_at" timestamptz(3) not null, "erased_at" timestamptz(3) null, constraint "tender_message_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "tender_message_thread_idx" on "tender_message" ("tender_id", "insurer_id", "created_at");`);

    this.addSql(
      `alter table "tender_message" add constraint "tender_message_tender_id_foreign" foreign key ("tender_id") references "tender" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "tender_message" add constraint "tender_message_insurer_id_foreign" foreign key ("insurer_id") references "insurer" ("id") on update cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "tender_message" cascade;`);
  }
}
