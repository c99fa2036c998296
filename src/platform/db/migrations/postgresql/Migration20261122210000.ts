import { Migration } from '@mikro-orm/migrations';

/** The public reason that an old free-text error stands for (the fixed vocabulary of issue 11). */
const publicReason = (column: string) => `case
  when ${column} like '%no answer within%' then 'insurer timed out'
  when ${column} like '%network error%' then 'insurer unreachable'
  when ${column} like '%too large%' then 'insurer answer too large'
  when ${column} like '%malformed acknowledgement%' or ${column} like '%already gave another request%' then 'insurer sent an invalid acknowledgement'
  when ${column} like '%not JSON%' and ${column} like '%sending the quotation request%' then 'insurer sent an invalid acknowledgement'
  when ${column} like '%malformed quote%' or ${column} like '%not JSON%' then 'insurer sent an invalid quote'
  when ${column} ~ 'insurer answered \\d{3}' then 'insurer answered ' || substring(${column} from 'insurer answered (\\d{3})')
  else 'internal error' end`;

/**
 * Quote requests get the CANCELLED status (closed tenders) and internal detail columns beside the public
 * reasons; the free texts stored so far move to the detail, the public fields get their fixed reason.
 */
export class Migration20261122210000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "quote_request" drop constraint if exists "quote_request_status_check";`);
    this.addSql(
      `alter table "quote_request" add constraint "quote_request_status_check" check ("status" in ('QUEUED', 'PROCESSING', 'AVAILABLE', 'QUOTED', 'DECLINED', 'FAILED', 'CANCELLED'));`,
    );
    this.addSql(
      `alter table "quote_request" add column "last_error_detail" varchar(1000) null, add column "failure_detail" varchar(1000) null, add column "quote_note" varchar(1000) null;`,
    );
    this.addSql(
      `update "quote_request" set "last_error_detail" = "last_error", "last_error" = ${publicReason('"last_error"')} where "last_error" is not null;`,
    );
    this.addSql(
      `update "quote_request" set "failure_detail" = "failure_reason", "failure_reason" = ${publicReason('"failure_reason"')} where "failure_reason" is not null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "quote_option" where "quote_request_id" in (select "id" from "quote_request" where "status" = 'CANCELLED');`);
    this.addSql(`delete from "quote_request" where "status" = 'CANCELLED';`);
    this.addSql(`alter table "quote_request" drop column "last_error_detail", drop column "failure_detail", drop column "quote_note";`);
    this.addSql(`alter table "quote_request" drop constraint if exists "quote_request_status_check";`);
    this.addSql(
      `alter table "quote_request" add constraint "quote_request_status_check" check ("status" in ('QUEUED', 'PROCESSING', 'AVAILABLE', 'QUOTED', 'DECLINED', 'FAILED'));`,
    );
  }
}
