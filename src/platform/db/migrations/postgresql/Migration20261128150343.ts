import { Migration } from '@mikro-orm/migrations';

/**
 * The risk assessment (issue 39): question sets per product and version, insurers' requirements, a tender's answers;
 * and quote requests that wait for answers (AWAITING_INFORMATION).
 */
export class Migration20261128150343 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "insurer_requirement" ("id" varchar(36) not null, "insurer_id" varchar(36) not null, "product" varchar(200) not null, "pointers" jsonb not null, "effective_from" timestamptz(3) not null, "set_by" varchar(200) not null, "set_at" timestamptz(3) not null, constraint "insurer_requirement_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "insurer_requirement_lookup_idx" on "insurer_requirement" ("insurer_id", "product", "effective_from");`);

    this.addSql(
      `create table "question_set" ("id" varchar(36) not null, "product" varchar(200) not null, "line_of_business_id" varchar(36) not null, "version" int not null, "schema_json" text not null, "digest" varchar(64) not null, "published_by" varchar(200) not null, "published_at" timestamptz(3) not null, "retired_at" timestamptz(3) null, constraint "question_set_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "question_set_line_of_business_idx" on "question_set" ("line_of_business_id");`);
    this.addSql(`alter table "question_set" add constraint "question_set_product_version_unique" unique ("product", "version");`);

    this.addSql(
      `create table "risk_assessment" ("id" varchar(36) not null, "tender_id" varchar(36) not null, "product" varchar(200) not null, "question_set_version" int not null, "answers" jsonb not null, "sources" jsonb not null, "status" text check ("status" in ('DRAFT', 'SUBMITTED')) not null default 'DRAFT', "version" int not null default 1, "frozen_at" timestamptz(3) null, "submitted_at" timestamptz(3) null, "erased_at" timestamptz(3) null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, constraint "risk_assessment_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "risk_assessment" add constraint "risk_assessment_tender_unique" unique ("tender_id");`);

    this.addSql(
      `alter table "insurer_requirement" add constraint "insurer_requirement_insurer_id_foreign" foreign key ("insurer_id") references "insurer" ("id") on update cascade;`,
    );

    this.addSql(
      `alter table "question_set" add constraint "question_set_line_of_business_id_foreign" foreign key ("line_of_business_id") references "line_of_business" ("id") on update cascade;`,
    );

    this.addSql(
      `alter table "risk_assessment" add constraint "risk_assessment_tender_id_foreign" foreign key ("tender_id") references "tender" ("id") on update cascade;`,
    );

    this.addSql(`alter table "quote_request" drop constraint if exists "quote_request_status_check";`);

    this.addSql(
      `alter table "quote_request" add constraint "quote_request_status_check" check("status" in ('QUEUED', 'PROCESSING', 'AVAILABLE', 'QUOTED', 'DECLINED', 'REFERRED', 'EXPIRED', 'AWAITING_MANUAL', 'AWAITING_INFORMATION', 'FAILED', 'CANCELLED'));`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "insurer_requirement" cascade;`);

    this.addSql(`drop table if exists "question_set" cascade;`);

    this.addSql(`drop table if exists "risk_assessment" cascade;`);

    this.addSql(`alter table "quote_request" drop constraint if exists "quote_request_status_check";`);

    this.addSql(
      `alter table "quote_request" add constraint "quote_request_status_check" check("status" in ('QUEUED', 'PROCESSING', 'AVAILABLE', 'QUOTED', 'DECLINED', 'REFERRED', 'EXPIRED', 'AWAITING_MANUAL', 'FAILED', 'CANCELLED'));`,
    );
  }
}
