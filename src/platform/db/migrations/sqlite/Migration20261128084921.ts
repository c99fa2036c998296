import { Migration } from '@mikro-orm/migrations';

export class Migration20261128084921 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index \`customer_erasure_customer_unique\`;`);

    this.addSql(`create index \`customer_erasure_customer_idx\` on \`customer_erasure\` (\`customer_id\`, \`erased_at\`);`);
  }
}
