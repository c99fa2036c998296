import { Migration } from '@mikro-orm/migrations';

const COLUMNS = '`id`, `tender_id`, `insurer_id`, `status`, `limits`, `risk_information`, `insurer_reference`, `attempts`, `next_attempt_at`, `last_error`, `failure_reason`, `lease_owner`, `lease_until`, `requested_by`, `acknowledged_at`, `callback_received_at`, `quoted_at`, `created_at`, `updated_at`';

function createQuoteRequest(table: string, statuses: string, extraColumns: string): string {
  return `create table \`${table}\` (\`id\` text not null, \`tender_id\` text not null, \`insurer_id\` text not null, \`status\` text check (\`status\` in (${statuses})) not null default 'QUEUED', \`limits\` json not null, \`risk_information\` json not null, \`insurer_reference\` text null, \`attempts\` integer not null default 0, \`next_attempt_at\` datetime null, \`last_error\` text null, \`failure_reason\` text null, \`lease_owner\` text null, \`lease_until\` datetime null, \`requested_by\` text not null, \`acknowledged_at\` datetime null, \`callback_received_at\` datetime null, \`quoted_at\` datetime null, \`created_at\` datetime not null, \`updated_at\` datetime not null${extraColumns}, constraint \`quote_request_tender_id_foreign\` foreign key(\`tender_id\`) references \`tender\`(\`id\`) on update cascade, constraint \`quote_request_insurer_id_foreign\` foreign key(\`insurer_id\`) references \`insurer\`(\`id\`) on update cascade, primary key (\`id\`));`;
}

const BEFORE = "'QUEUED', 'PROCESSING', 'AVAILABLE', 'QUOTED', 'DECLINED', 'FAILED'";
const AFTER = `${BEFORE}, 'CANCELLED'`;
const DETAIL_COLUMNS = ', `last_error_detail` text null, `failure_detail` text null, `quote_note` text null';

/**
 * Quote requests get the CANCELLED status (closed tenders) and internal detail columns beside the public
 * reasons. SQLite cannot change a CHECK constraint in place, so the table is rebuilt; foreign keys are
 * deferred to the commit, where quote_option's references find the rebuilt table under the old name.
 */
export class Migration20261122210000 extends Migration {

  override async up(): Promise<void> {
    this.rebuild(AFTER, DETAIL_COLUMNS, COLUMNS);
  }

  override async down(): Promise<void> {
    this.addSql(`delete from \`quote_option\` where \`quote_request_id\` in (select \`id\` from \`quote_request\` where \`status\` = 'CANCELLED');`);
    this.addSql(`delete from \`quote_request\` where \`status\` = 'CANCELLED';`);
    this.rebuild(BEFORE, '', COLUMNS);
  }

  private rebuild(statuses: string, extraColumns: string, copied: string): void {
    this.addSql('pragma defer_foreign_keys = on;');
    this.addSql(createQuoteRequest('quote_request_rebuilt', statuses, extraColumns));
    this.addSql(`insert into \`quote_request_rebuilt\` (${copied}) select ${copied} from \`quote_request\`;`);
    this.addSql('drop table `quote_request`;');
    this.addSql('alter table `quote_request_rebuilt` rename to `quote_request`;');
    this.addSql('create index `quote_request_tender_id_index` on `quote_request` (`tender_id`);');
    this.addSql('create index `quote_request_due_idx` on `quote_request` (`status`, `next_attempt_at`);');
    this.addSql('create unique index `quote_request_insurer_reference_unique` on `quote_request` (`insurer_id`, `insurer_reference`);');
  }

}
