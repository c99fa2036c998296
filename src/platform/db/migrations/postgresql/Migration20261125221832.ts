import { Migration } from '@mikro-orm/migrations';

/**
 * Quotes as underwriters give them (issue 27): a quote's validity, currency, the underwriter's reason, its source and
 * who entered a manual answer, the expiry warning, subjectivities per option; quote requests may be REFERRED, EXPIRED
 * or AWAITING_MANUAL; an insurer integrates by API or manually (no quote API URL then).
 */
export class Migration20261125221832 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "quote_request" drop constraint if exists "quote_request_status_check";`);

    this.addSql(`alter table "insurer" add column "integration" text check ("integration" in ('API', 'MANUAL')) not null default 'API';`);
    this.addSql(`alter table "insurer" alter column "quote_api_url" drop not null;`);

    this.addSql(
      `alter table "quote_request" add column "valid_until" timestamptz(3) null, add column "currency" varchar(3) null, add column "underwriter_reason" varchar(3000) null, add column "expiry_warned_at" timestamptz(3) null, add column "source" text check ("source" in ('API', 'MANUAL')) not null default 'API', add column "answered_by" varchar(64) null;`,
    );
    this.addSql(
      `alter table "quote_request" add constraint "quote_request_status_check" check("status" in ('QUEUED', 'PROCESSING', 'AVAILABLE', 'QUOTED', 'DECLINED', 'REFERRED', 'EXPIRED', 'AWAITING_MANUAL', 'FAILED', 'CANCELLED'));`,
    );
    this.addSql(`create index "quote_request_validity_idx" on "quote_request" ("status", "valid_until");`);

    this.addSql(`alter table "quote_option" add column "subjectivities" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "quote_request" drop constraint if exists "quote_request_status_check";`);
    this.addSql(
      `delete from "quote_option" where "quote_request_id" in (select "id" from "quote_request" where "status" in ('REFERRED', 'EXPIRED', 'AWAITING_MANUAL'));`,
    );
    this.addSql(`delete from "quote_request" where "status" in ('REFERRED', 'EXPIRED', 'AWAITING_MANUAL');`);

    this.addSql(`alter table "insurer" drop column "integration";`);

    this.addSql(`update "insurer" set "quote_api_url" = '' where "quote_api_url" is null;`);
    this.addSql(`alter table "insurer" alter column "quote_api_url" set not null;`);

    this.addSql(`alter table "quote_option" drop column "subjectivities";`);

    this.addSql(`drop index "quote_request_validity_idx";`);
    this.addSql(
      `alter table "quote_request" drop column "valid_until", drop column "currency", drop column "underwriter_reason", drop column "expiry_warned_at", drop column "source", drop column "answered_by";`,
    );

    this.addSql(
      `alter table "quote_request" add constraint "quote_request_status_check" check("status" in ('QUEUED', 'PROCESSING', 'AVAILABLE', 'QUOTED', 'DECLINED', 'FAILED', 'CANCELLED'));`,
    );
  }
}
