import { Migration } from '@mikro-orm/migrations';

/**
 * Mail, part 2 (issue 40): notification preferences per address (`mail_preference`), the tender a mail is about
 * (`mail_message.tender_id`, what an erasure finds it by), mails held for a digest, digested or cancelled (the
 * status CHECK), and a person's mail language.
 */
export class Migration20261128175701 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "mail_preference" ("id" varchar(36) not null, "email" varchar(254) not null, "events" jsonb not null, "delivery" text check ("delivery" in ('IMMEDIATE', 'DAILY_DIGEST')) not null default 'IMMEDIATE', "updated_at" timestamptz(3) not null, constraint "mail_preference_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "mail_preference" add constraint "mail_preference_email_unique" unique ("email");`);

    this.addSql(`alter table "mail_message" drop constraint if exists "mail_message_status_check";`);

    this.addSql(`alter table "mail_message" add column "tender_id" varchar(36) null;`);
    this.addSql(
      `alter table "mail_message" add constraint "mail_message_status_check" check("status" in ('PENDING', 'SENT', 'FAILED', 'HELD', 'DIGESTED', 'CANCELLED'));`,
    );
    this.addSql(`create index "mail_message_tender_idx" on "mail_message" ("tender_id");`);

    this.addSql(`alter table "person" add column "language" varchar(2) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "mail_preference" cascade;`);

    this.addSql(`alter table "mail_message" drop constraint if exists "mail_message_status_check";`);

    this.addSql(`drop index "mail_message_tender_idx";`);
    this.addSql(`alter table "mail_message" drop column "tender_id";`);

    this.addSql(`alter table "mail_message" add constraint "mail_message_status_check" check("status" in ('PENDING', 'SENT', 'FAILED'));`);

    this.addSql(`alter table "person" drop column "language";`);
  }
}
