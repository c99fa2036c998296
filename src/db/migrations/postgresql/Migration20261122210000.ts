import { Migration } from '@mikro-orm/migrations';

/** Quote requests get the CANCELLED status (closed tenders) and internal detail columns beside the public reasons. */
export class Migration20261122210000 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "quote_request" drop constraint if exists "quote_request_status_check";`);
    this.addSql(`alter table "quote_request" add constraint "quote_request_status_check" check ("status" in ('QUEUED', 'PROCESSING', 'AVAILABLE', 'QUOTED', 'DECLINED', 'FAILED', 'CANCELLED'));`);
    this.addSql(`alter table "quote_request" add column "last_error_detail" varchar(1000) null, add column "failure_detail" varchar(1000) null, add column "quote_note" varchar(1000) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "quote_option" where "quote_request_id" in (select "id" from "quote_request" where "status" = 'CANCELLED');`);
    this.addSql(`delete from "quote_request" where "status" = 'CANCELLED';`);
    this.addSql(`alter table "quote_request" drop column "last_error_detail", drop column "failure_detail", drop column "quote_note";`);
    this.addSql(`alter table "quote_request" drop constraint if exists "quote_request_status_check";`);
    this.addSql(`alter table "quote_request" add constraint "quote_request_status_check" check ("status" in ('QUEUED', 'PROCESSING', 'AVAILABLE', 'QUOTED', 'DECLINED', 'FAILED'));`);
  }

}
