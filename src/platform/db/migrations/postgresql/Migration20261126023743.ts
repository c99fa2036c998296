import { Migration } from '@mikro-orm/migrations';

export class Migration20261126023743 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "document" drop constraint if exists "document_kind_check";`);

    this.addSql(
      `alter table "document" add constraint "document_kind_check" check("kind" in ('RISK', 'QUOTE', 'POLICY', 'OTHER', 'ADVICE'));`,
    );

    this.addSql(
      `alter table "tender_history_entry" add column "advice_format" varchar(8) null, add column "advice_document_id" varchar(36) null, add column "advice_sha256" varchar(64) null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "document" drop constraint if exists "document_kind_check";`);

    this.addSql(`alter table "document" add constraint "document_kind_check" check("kind" in ('RISK', 'QUOTE', 'POLICY', 'OTHER'));`);

    this.addSql(
      `alter table "tender_history_entry" drop column "advice_format", drop column "advice_document_id", drop column "advice_sha256";`,
    );
  }
}
