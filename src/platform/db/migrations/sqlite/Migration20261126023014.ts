import { Migration } from '@mikro-orm/migrations';

export class Migration20261126023014 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`customer_erasure\` (\`id\` text not null, \`customer_id\` text not null, \`erased_at\` datetime not null, \`erased_by\` text not null, \`trigger\` text check (\`trigger\` in ('REQUEST', 'RETENTION')) not null, \`reason\` text not null, \`tenders\` integer not null, \`documents\` integer not null, \`persons\` integer not null, primary key (\`id\`));`,
    );
    this.addSql(`create unique index \`customer_erasure_customer_unique\` on \`customer_erasure\` (\`customer_id\`);`);

    this.addSql(
      `create table \`document_removal\` (\`id\` text not null, \`sha256\` text not null, \`created_at\` datetime not null, primary key (\`id\`));`,
    );

    this.addSql(`alter table \`customer\` add column \`erased_at\` datetime null;`);

    this.addSql(`alter table \`tender\` add column \`erased_at\` datetime null;`);
  }
}
