import { Migration } from '@mikro-orm/migrations';

export class Migration20261126023022 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "customer_erasure" ("id" varchar(36) not null, "customer_id" varchar(36) not null, "erased_at" timestamptz(3) not null, "erased_by" varchar(64) not null, "trigger" text check ("trigger" in ('REQUEST', 'RETENTION')) not null, "reason" varchar(1000) not null, "tenders" int not null, "documents" int not null, "persons" int not null, constraint "customer_erasure_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "customer_erasure" add constraint "customer_erasure_customer_unique" unique ("customer_id");`);

    this.addSql(
      `create table "document_removal" ("id" varchar(36) not null, "sha256" varchar(64) not null, "created_at" timestamptz(3) not null, constraint "document_removal_pkey" primary key ("id"));`,
    );

    this.addSql(`alter table "customer" add column "erased_at" timestamptz(3) null;`);

    this.addSql(`alter table "tender" add column "erased_at" timestamptz(3) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "customer_erasure" cascade;`);

    this.addSql(`drop table if exists "document_removal" cascade;`);

    this.addSql(`alter table "customer" drop column "erased_at";`);

    this.addSql(`alter table "tender" drop column "erased_at";`);
  }
}
