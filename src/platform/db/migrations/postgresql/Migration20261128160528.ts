import { Migration } from '@mikro-orm/migrations';

export class Migration20261128160528 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "mail_message" ("id" varchar(36) not null, "message_id" varchar(128) not null, "recipient_address" varchar(254) not null, "recipient_name" varchar(201) not null, "language" varchar(2) not null, "template" varchar(64) not null, "data" jsonb not null, "status" text check ("status" in ('PENDING', 'SENT', 'FAILED')) not null default 'PENDING', "attempts" int not null default 0, "next_attempt_at" timestamptz(3) null, "lease_owner" varchar(36) null, "lease_until" timestamptz(3) null, "last_error" varchar(1000) null, "created_at" timestamptz(3) not null, "sent_at" timestamptz(3) null, constraint "mail_message_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "mail_message" add constraint "mail_message_message_id_unique" unique ("message_id");`);
    this.addSql(`create index "mail_message_due_idx" on "mail_message" ("status", "next_attempt_at");`);

    this.addSql(`alter table "insurer" add column "contacts" jsonb not null default '[]';`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "mail_message" cascade;`);

    this.addSql(`alter table "insurer" drop column "contacts";`);
  }
}
