import { Migration } from '@mikro-orm/migrations';
import { rebuildTable, withForeignKeysOff } from './table-rebuild';

const STATUSES_BEFORE = "'QUEUED', 'PROCESSING', 'AVAILABLE', 'QUOTED', 'DECLINED', 'FAILED', 'CANCELLED'";
const STATUSES_AFTER =
  "'QUEUED', 'PROCESSING', 'AVAILABLE', 'QUOTED', 'DECLINED', 'REFERRED', 'EXPIRED', 'AWAITING_MANUAL', 'FAILED', 'CANCELLED'";
const URL_REQUIRED = '`quote_api_url` text not null';
const URL_OPTIONAL = '`quote_api_url` text null';

/**
 * Quotes as underwriters give them (issue 27): a quote's validity, currency, the underwriter's reason, its source and
 * who entered a manual answer, the expiry warning, subjectivities per option; quote requests may be REFERRED, EXPIRED
 * or AWAITING_MANUAL; an insurer integrates by API or manually (no quote API URL then).
 * SQLite cannot change a CHECK constraint or a NOT NULL in place, so `quote_request` and `insurer` are rebuilt as
 * SQLite prescribes (https://sqlite.org/lang_altertable.html#otheralter), each from its own current definition with
 * only that clause changed: foreign keys off (outside a transaction), the rebuild in a transaction of its own,
 * checked with foreign_key_check before the commit.
 */
export class Migration20261125221826 extends Migration {
  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    await this.inTransaction(async () => {
      await this.execute(
        "alter table `insurer` add column `integration` text check (`integration` in ('API', 'MANUAL')) not null default 'API';",
      );
      for (const column of [
        '`valid_until` datetime null',
        '`currency` text null',
        '`underwriter_reason` text null',
        '`expiry_warned_at` datetime null',
        "`source` text check (`source` in ('API', 'MANUAL')) not null default 'API'",
        '`answered_by` text null',
      ]) {
        await this.execute(`alter table \`quote_request\` add column ${column};`);
      }
      await this.execute('alter table `quote_option` add column `subjectivities` json null;');
      await this.rebuild('quote_request', (sql) => sql.replace(STATUSES_BEFORE, STATUSES_AFTER));
      await this.rebuild('insurer', (sql) => sql.replace(URL_REQUIRED, URL_OPTIONAL));
      await this.execute('create index `quote_request_validity_idx` on `quote_request` (`status`, `valid_until`);');
    });
  }

  override async down(): Promise<void> {
    await this.inTransaction(async () => {
      await this.execute('drop index `quote_request_validity_idx`;');
      await this.execute(
        "delete from `quote_option` where `quote_request_id` in (select `id` from `quote_request` where `status` in ('REFERRED', 'EXPIRED', 'AWAITING_MANUAL'));",
      );
      await this.execute("delete from `quote_request` where `status` in ('REFERRED', 'EXPIRED', 'AWAITING_MANUAL');");
      await this.rebuild('quote_request', (sql) => sql.replace(STATUSES_AFTER, STATUSES_BEFORE));
      for (const column of ['valid_until', 'currency', 'underwriter_reason', 'expiry_warned_at', 'source', 'answered_by']) {
        await this.execute(`alter table \`quote_request\` drop column \`${column}\`;`);
      }
      await this.execute('alter table `quote_option` drop column `subjectivities`;');
      await this.execute("update `insurer` set `quote_api_url` = '' where `quote_api_url` is null;");
      await this.rebuild('insurer', (sql) => sql.replace(URL_OPTIONAL, URL_REQUIRED));
      await this.execute('alter table `insurer` drop column `integration`;');
    });
  }

  private inTransaction(work: () => Promise<void>): Promise<void> {
    return withForeignKeysOff((sql, params) => this.execute(sql, params), work);
  }

  private rebuild(table: string, change: (sql: string) => string): Promise<void> {
    return rebuildTable((sql, params) => this.execute(sql, params), table, change);
  }
}
