import { Migration } from '@mikro-orm/migrations';

/** Clarification threads (docs/people.md): one message per row, a thread read by its tender, insurer and time. */
export class Migration20261128160251 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`tender_message\` (\`id\` text not null, \`tender_id\` text not null, \`insurer_id\` text not null, \`author_role\` text not null, \`author_app_id\` text not null, \`text\` text not null, \`document_ids\` json not null, \`requests_information\` integer not null default false, \`created_at\` datetime not null, \`erased_at\` datetime null, constraint \`tender_message_tender_id_foreign\` foreign key(\`tender_id\`) references \`tender\`(\`id\`) on delete cascade on update cascade, constraint \`tender_message_insurer_id_foreign\` foreign key(\`insurer_id\`) references \`insurer\`(\`id\`) on update cascade, primary key (\`id\`));`,
    );
    this.addSql(`create index \`tender_message_thread_idx\` on \`tender_message\` (\`tender_id\`, \`insurer_id\`, \`created_at\`);`);
  }
}
