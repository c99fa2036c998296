import { Migration } from '@mikro-orm/migrations';

const COLUMNS =
  '`id`, `tender_id`, `insurer_id`, `status`, `limits`, `risk_information`, `insurer_reference`, `attempts`, `next_attempt_at`, `last_error`, `failure_reason`, `lease_owner`, `lease_until`, `requested_by`, `acknowledged_at`, `callback_received_at`, `quoted_at`, `created_at`, `updated_at`';

function createQuoteRequest(table: string, statuses: string, extraColumns: string): string {
  return `create table \`${table}\` (\`id\` text not null, \`tender_id\` text not null, \`insurer_id\` text not null, \`status\` text check (\`status\` in (${statuses})) not null default 'QUEUED', \`limits\` json not null, \`risk_information\` json not null, \`insurer_reference\` text null, \`attempts\` integer not null default 0, \`next_attempt_at\` datetime null, \`last_error\` text null, \`failure_reason\` text null, \`lease_owner\` text null, \`lease_until\` datetime null, \`requested_by\` text not null, \`acknowledged_at\` datetime null, \`callback_received_at\` datetime null, \`quoted_at\` datetime null, \`created_at\` datetime not null, \`updated_at\` datetime not null${extraColumns}, constraint \`quote_request_tender_id_foreign\` foreign key(\`tender_id\`) references \`tender\`(\`id\`) on update cascade, constraint \`quote_request_insurer_id_foreign\` foreign key(\`insurer_id\`) references \`insurer\`(\`id\`) on update cascade, primary key (\`id\`));`;
}

const BEFORE = "'QUEUED', 'PROCESSING', 'AVAILABLE', 'QUOTED', 'DECLINED', 'FAILED'";
const AFTER = `${BEFORE}, 'CANCELLED'`;
const DETAIL_COLUMNS = ', `last_error_detail` text null, `failure_detail` text null, `quote_note` text null';

/** The public reason that an old free-text error stands for (the fixed vocabulary of issue 11). */
const publicReason = (column: string) => `case
  when ${column} like '%no answer within%' then 'insurer timed out'
  when ${column} like '%network error%' then 'insurer unreachable'
  when ${column} like '%too large%' then 'insurer answer too large'
  when ${column} like '%malformed acknowledgement%' or ${column} like '%already gave another request%' then 'insurer sent an invalid acknowledgement'
  when ${column} like '%not JSON%' and ${column} like '%sending the quotation request%' then 'insurer sent an invalid acknowledgement'
  when ${column} like '%malformed quote%' or ${column} like '%not JSON%' then 'insurer sent an invalid quote'
  when ${column} like '%insurer answered %' then 'insurer answered ' || substr(${column}, instr(${column}, 'insurer answered ') + 17, 3)
  else 'internal error' end`;

/**
 * Quote requests get the CANCELLED status (closed tenders) and internal detail columns beside the public
 * reasons; the free texts stored so far move to the detail, the public fields get their fixed reason.
 * SQLite cannot change a CHECK constraint in place, so the table is rebuilt as SQLite prescribes
 * (https://sqlite.org/lang_altertable.html#otheralter): foreign keys off, which works only outside a
 * transaction, then the rebuild in a transaction of its own, checked with foreign_key_check before the commit.
 */
export class Migration20261122210000 extends Migration {
  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    await this.rebuild(AFTER, DETAIL_COLUMNS, COLUMNS, [
      `update \`quote_request\` set \`last_error_detail\` = \`last_error\`, \`last_error\` = ${publicReason('`last_error`')} where \`last_error\` is not null;`,
      `update \`quote_request\` set \`failure_detail\` = \`failure_reason\`, \`failure_reason\` = ${publicReason('`failure_reason`')} where \`failure_reason\` is not null;`,
    ]);
  }

  override async down(): Promise<void> {
    await this.rebuild(
      BEFORE,
      '',
      COLUMNS,
      [],
      [
        `delete from \`quote_option\` where \`quote_request_id\` in (select \`id\` from \`quote_request\` where \`status\` = 'CANCELLED');`,
        `delete from \`quote_request\` where \`status\` = 'CANCELLED';`,
      ],
    );
  }

  private async rebuild(statuses: string, extraColumns: string, copied: string, after: string[], before: string[] = []): Promise<void> {
    await this.execute('pragma foreign_keys = off');
    try {
      await this.execute('begin');
      try {
        for (const sql of [
          ...before,
          createQuoteRequest('quote_request_rebuilt', statuses, extraColumns),
          `insert into \`quote_request_rebuilt\` (${copied}) select ${copied} from \`quote_request\`;`,
          'drop table `quote_request`;',
          'alter table `quote_request_rebuilt` rename to `quote_request`;',
          'create index `quote_request_tender_id_index` on `quote_request` (`tender_id`);',
          'create index `quote_request_due_idx` on `quote_request` (`status`, `next_attempt_at`);',
          'create unique index `quote_request_insurer_reference_unique` on `quote_request` (`insurer_id`, `insurer_reference`);',
          ...after,
        ]) {
          await this.execute(sql);
        }
        const violations = await this.execute('pragma foreign_key_check');
        if (violations.length > 0) throw new Error(`the rebuilt quote_request breaks ${violations.length} foreign keys`);
        await this.execute('commit');
      } catch (error) {
        await this.execute('rollback');
        throw error;
      }
    } finally {
      await this.execute('pragma foreign_keys = on');
    }
  }
}
