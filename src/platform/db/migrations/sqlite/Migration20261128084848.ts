import { Migration } from '@mikro-orm/migrations';

export class Migration20261128084848 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table \`document_removal\` add column \`store\` text null;`);

    this.addSql(`alter table \`document\` add column \`store\` text null;`);
  }
}
