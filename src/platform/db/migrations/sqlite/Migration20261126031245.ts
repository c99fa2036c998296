import { Migration } from '@mikro-orm/migrations';

export class Migration20261126031245 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`access_log_entry\` (\`id\` text not null, \`tender_id\` text not null, \`at\` datetime not null, \`app_id\` text not null, \`role\` text check (\`role\` in ('insurer', 'broker', 'internal', 'analyst')) not null, \`party_id\` text not null, \`surface\` text check (\`surface\` in ('REST', 'GRAPHQL', 'DOCUMENT')) not null, \`operation\` text not null, \`count\` integer not null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`access_log_entry_at_idx\` on \`access_log_entry\` (\`at\`);`);
    this.addSql(`create index \`access_log_entry_client_at_idx\` on \`access_log_entry\` (\`app_id\`, \`at\`);`);
    this.addSql(`create index \`access_log_entry_tender_at_idx\` on \`access_log_entry\` (\`tender_id\`, \`at\`);`);
  }
}
