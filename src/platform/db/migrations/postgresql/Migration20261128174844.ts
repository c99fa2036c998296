import { Migration } from '@mikro-orm/migrations';

/**
 * Capability links (src/links): the questionnaire's and the underwriter's page links, each kept as the SHA-256 of its
 * token (unique, how a request finds its link), the salt it is derived from, its expiry and revocation.
 */
export class Migration20261128174844 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "access_link" ("id" varchar(36) not null, "kind" text check ("kind" in ('QUESTIONNAIRE', 'UNDERWRITING')) not null, "tender_id" varchar(36) not null, "quote_request_id" varchar(36) null, "email" varchar(254) null, "language" varchar(2) null, "token_hash" varchar(43) not null, "salt" varchar(43) not null, "expires_at" timestamptz(3) not null, "revoked_at" timestamptz(3) null, "created_at" timestamptz(3) not null, "created_by" varchar(64) null, constraint "access_link_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "access_link" add constraint "access_link_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "access_link_tender_idx" on "access_link" ("tender_id", "kind");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "access_link" cascade;`);
  }
}
