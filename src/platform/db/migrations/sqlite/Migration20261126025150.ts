import { Migration } from '@mikro-orm/migrations';

export class Migration20261126025150 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index \`revoked_token_revoked_at_index\` on \`revoked_token\` (\`revoked_at\`);`);
  }
}
