import { Migration } from '@mikro-orm/migrations';

export class Migration20261125230016 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "document" ("id" varchar(36) not null, "tender_id" varchar(36) not null, "kind" text check ("kind" in ('RISK', 'QUOTE', 'POLICY', 'OTHER')) not null, "filename" varchar(255) not null, "content_type" varchar(100) not null, "size" int not null, "sha256" varchar(64) not null, "added_by" varchar(200) not null, "added_by_role" varchar(16) not null, "quote_request_id" varchar(36) null, "state" text check ("state" in ('PENDING', 'AVAILABLE')) not null default 'PENDING', "upload_token_hash" varchar(64) null, "upload_expires_at" timestamptz(3) null, "created_at" timestamptz(3) not null, constraint "document_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "document" add constraint "document_upload_token_unique" unique ("upload_token_hash");`);
    this.addSql(`create index "document_sha256_idx" on "document" ("sha256");`);
    this.addSql(`create index "document_state_expires_idx" on "document" ("state", "upload_expires_at");`);
    this.addSql(`create index "document_tender_created_at_idx" on "document" ("tender_id", "created_at");`);

    this.addSql(
      `alter table "document" add constraint "document_tender_id_foreign" foreign key ("tender_id") references "tender" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "document" add constraint "document_quote_request_id_foreign" foreign key ("quote_request_id") references "quote_request" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(`alter table "tender" add column "policy_document_id" varchar(36) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "document" cascade;`);

    this.addSql(`alter table "tender" drop column "policy_document_id";`);
  }
}
