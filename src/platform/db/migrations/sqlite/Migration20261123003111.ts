import { Migration } from '@mikro-orm/migrations';

export class Migration20261123003111 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table \`webhook_endpoint\` add column \`previous_secret\` text null;`);
    this.addSql(`alter table \`webhook_endpoint\` add column \`previous_secret_until\` datetime null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table \`webhook_endpoint\` drop column \`previous_secret\`;`);
    this.addSql(`alter table \`webhook_endpoint\` drop column \`previous_secret_until\`;`);
  }
}
