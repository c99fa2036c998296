import { Migration } from '@mikro-orm/migrations';

/** The size of each quote request's risk information, by which reads of it are priced before it is loaded. */
export class Migration20261125194500 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "quote_request" add column "risk_information_bytes" int not null default 0;`);
    // jsonb's text has a space after each separator: a little more than the compact JSON, never less.
    this.addSql(`update "quote_request" set "risk_information_bytes" = octet_length("risk_information"::text);`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "quote_request" drop column "risk_information_bytes";`);
  }
}
