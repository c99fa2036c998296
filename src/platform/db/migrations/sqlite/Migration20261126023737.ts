import { Migration } from '@mikro-orm/migrations';

const COLUMNS =
  '`id`, `tender_id`, `kind`, `filename`, `content_type`, `size`, `sha256`, `added_by`, `added_by_role`, `quote_request_id`, `state`, `upload_token_hash`, `upload_expires_at`, `created_at`';

/**
 * Documents get the ADVICE kind (the advice export, issue 29) and history entries the advice export's columns.
 * SQLite cannot change a CHECK constraint in place, so the document table is rebuilt as SQLite prescribes
 * (https://sqlite.org/lang_altertable.html#otheralter), as Migration20261122210000 does: foreign keys off, which
 * works only outside a transaction, then the rebuild in a transaction of its own, checked before the commit.
 */
export class Migration20261126023737 extends Migration {
  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    await this.execute('pragma foreign_keys = off');
    try {
      await this.execute('begin');
      try {
        for (const sql of [
          `create table \`document_rebuilt\` (\`id\` text not null, \`tender_id\` text not null, \`kind\` text check (\`kind\` in ('RISK', 'QUOTE', 'POLICY', 'OTHER', 'ADVICE')) not null, \`filename\` text not null, \`content_type\` text not null, \`size\` integer not null, \`sha256\` text not null, \`added_by\` text not null, \`added_by_role\` text not null, \`quote_request_id\` text null, \`state\` text check (\`state\` in ('PENDING', 'AVAILABLE')) not null default 'PENDING', \`upload_token_hash\` text null, \`upload_expires_at\` datetime null, \`created_at\` datetime not null, constraint \`document_tender_id_foreign\` foreign key(\`tender_id\`) references \`tender\`(\`id\`) on delete cascade on update cascade, constraint \`document_quote_request_id_foreign\` foreign key(\`quote_request_id\`) references \`quote_request\`(\`id\`) on delete cascade on update cascade, primary key (\`id\`));`,
          `insert into \`document_rebuilt\` (${COLUMNS}) select ${COLUMNS} from \`document\`;`,
          'drop table `document`;',
          'alter table `document_rebuilt` rename to `document`;',
          'create unique index `document_upload_token_unique` on `document` (`upload_token_hash`);',
          'create index `document_sha256_idx` on `document` (`sha256`);',
          'create index `document_state_expires_idx` on `document` (`state`, `upload_expires_at`);',
          'create index `document_tender_created_at_idx` on `document` (`tender_id`, `created_at`);',
          'alter table `tender_history_entry` add column `advice_format` text null;',
          'alter table `tender_history_entry` add column `advice_document_id` text null;',
          'alter table `tender_history_entry` add column `advice_sha256` text null;',
        ]) {
          await this.execute(sql);
        }
        const violations = await this.execute('pragma foreign_key_check');
        if (violations.length > 0) throw new Error(`the rebuilt document table breaks ${violations.length} foreign keys`);
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
