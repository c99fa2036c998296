import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 41, the bind gate: subjectivities become things (`subjectivity`, each with its status, due date and steps in
 * `subjectivity_step`), the tender records the answer to its order and its policy period, and its history names the
 * binding's steps. Every subjectivity quoted so far (`quote_option.subjectivities`) becomes an OPEN row, in the
 * insurer's order, dated when its quote was last changed. New tables and nullable columns only: no table is rebuilt.
 */
export class Migration20261128175741 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "subjectivity" ("id" varchar(36) not null, "tender_id" varchar(36) not null, "quote_request_id" varchar(36) not null, "insurer_id" varchar(36) not null, "quote_option_id" varchar(36) not null, "position" int not null, "stage" text check ("stage" in ('PRE_BIND', 'POST_BIND')) not null, "text" varchar(3000) not null, "due_at" timestamptz(3) null, "status" text check ("status" in ('OPEN', 'RESPONDED', 'ACCEPTED', 'REJECTED', 'WAIVED')) not null default 'OPEN', "overdue_at" timestamptz(3) null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, constraint "subjectivity_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "subjectivity_due_idx" on "subjectivity" ("due_at");`);
    this.addSql(`create index "subjectivity_option_idx" on "subjectivity" ("quote_option_id");`);
    this.addSql(`create index "subjectivity_tender_idx" on "subjectivity" ("tender_id");`);

    this.addSql(
      `create table "subjectivity_step" ("id" varchar(36) not null, "subjectivity_id" varchar(36) not null, "at" timestamptz(3) not null, "actor" varchar(64) not null, "actor_role" text check ("actor_role" in ('insurer', 'broker', 'internal', 'analyst')) not null, "kind" text check ("kind" in ('RESPONDED', 'ACCEPTED', 'REJECTED', 'WAIVED')) not null, "text" varchar(2000) null, "document_ids" jsonb null, constraint "subjectivity_step_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "subjectivity_step_subjectivity_at_idx" on "subjectivity_step" ("subjectivity_id", "at");`);

    this.addSql(
      `alter table "subjectivity" add constraint "subjectivity_tender_id_foreign" foreign key ("tender_id") references "tender" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "subjectivity" add constraint "subjectivity_quote_request_id_foreign" foreign key ("quote_request_id") references "quote_request" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "subjectivity" add constraint "subjectivity_insurer_id_foreign" foreign key ("insurer_id") references "insurer" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "subjectivity" add constraint "subjectivity_quote_option_id_foreign" foreign key ("quote_option_id") references "quote_option" ("id") on update cascade;`,
    );

    this.addSql(
      `alter table "subjectivity_step" add constraint "subjectivity_step_subjectivity_id_foreign" foreign key ("subjectivity_id") references "subjectivity" ("id") on update cascade;`,
    );

    this.addSql(
      `alter table "tender" add column "cover_ordered_at" timestamptz(3) null, add column "cover_accepted_at" timestamptz(3) null, add column "inception_date" varchar(10) null, add column "cover_order_overdue_at" timestamptz(3) null, add column "policy_period_start" varchar(10) null, add column "policy_period_end" varchar(10) null;`,
    );

    this.addSql(
      `alter table "tender_history_entry" add column "step" varchar(32) null, add column "subjectivity_id" varchar(36) null, add column "insurer_id" varchar(36) null;`,
    );

    this.addSql(`insert into "subjectivity" ("id", "tender_id", "quote_request_id", "insurer_id", "quote_option_id", "position",
        "stage", "text", "due_at", "status", "created_at", "updated_at")
      select gen_random_uuid()::text, qr."tender_id", qr."id", qr."insurer_id", o."id", (j.ordinality - 1)::int,
        j.value->>'stage', j.value->>'text', null, 'OPEN', qr."updated_at", qr."updated_at"
      from "quote_option" o join "quote_request" qr on qr."id" = o."quote_request_id"
        cross join lateral jsonb_array_elements(o."subjectivities") with ordinality as j(value, ordinality)
      where o."subjectivities" is not null and jsonb_typeof(o."subjectivities") = 'array';`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "subjectivity_step" drop constraint "subjectivity_step_subjectivity_id_foreign";`);

    this.addSql(`drop table if exists "subjectivity" cascade;`);

    this.addSql(`drop table if exists "subjectivity_step" cascade;`);

    this.addSql(
      `alter table "tender" drop column "cover_ordered_at", drop column "cover_accepted_at", drop column "inception_date", drop column "cover_order_overdue_at", drop column "policy_period_start", drop column "policy_period_end";`,
    );

    this.addSql(`alter table "tender_history_entry" drop column "step", drop column "subjectivity_id", drop column "insurer_id";`);
  }
}
