import { Migration } from '@mikro-orm/migrations';
import { rebuildTable, withForeignKeysOff } from './table-rebuild';

const STATUSES_BEFORE = "'PENDING', 'SENT', 'FAILED'";
const STATUSES_AFTER = "'PENDING', 'SENT', 'FAILED', 'HELD', 'DIGESTED', 'CANCELLED'";

/**
 * Mail, part 2 (issue 40): notification preferences per address (`mail_preference`), the tender a mail is about
 * (`mail_message.tender_id`, what an erasure finds it by), mails held for a digest, digested or cancelled (the
 * status CHECK, for which `mail_message` is rebuilt, table-rebuild.ts), and a person's mail language.
 */
export class Migration20261128175646 extends Migration {
  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    const execute = (sql: string) => this.execute(sql);
    await withForeignKeysOff(execute, async () => {
      await this.execute(
        `create table \`mail_preference\` (\`id\` text not null, \`email\` text not null, \`events\` json not null, \`delivery\` text check (\`delivery\` in ('IMMEDIATE', 'DAILY_DIGEST')) not null default 'IMMEDIATE', \`updated_at\` datetime not null, primary key (\`id\`));`,
      );
      await this.execute(`create unique index \`mail_preference_email_unique\` on \`mail_preference\` (\`email\`);`);
      await this.execute(`alter table \`mail_message\` add column \`tender_id\` text null;`);
      await rebuildTable(execute, 'mail_message', (sql) => sql.replace(STATUSES_BEFORE, STATUSES_AFTER));
      await this.execute(`create index \`mail_message_tender_idx\` on \`mail_message\` (\`tender_id\`);`);
      await this.execute(`alter table \`person\` add column \`language\` text null;`);
    });
  }
}
