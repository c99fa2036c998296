import { Migration } from '@mikro-orm/migrations';

export class Migration20261128160525 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`mail_message\` (\`id\` text not null, \`message_id\` text not null, \`recipient_address\` text not null, \`recipient_name\` text not null, \`language\` text not null, \`template\` text not null, \`data\` json not null, \`status\` text check (\`status\` in ('PENDING', 'SENT', 'FAILED')) not null default 'PENDING', \`attempts\` integer not null default 0, \`next_attempt_at\` datetime null, \`lease_owner\` text null, \`lease_until\` datetime null, \`last_error\` text null, \`created_at\` datetime not null, \`sent_at\` datetime null, primary key (\`id\`));`,
    );
    this.addSql(`create unique index \`mail_message_message_id_unique\` on \`mail_message\` (\`message_id\`);`);
    this.addSql(`create index \`mail_message_due_idx\` on \`mail_message\` (\`status\`, \`next_attempt_at\`);`);

    this.addSql(`alter table \`insurer\` add column \`contacts\` json not null default '[]';`);
  }
}
