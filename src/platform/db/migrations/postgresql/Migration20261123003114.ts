import { Migration } from '@mikro-orm/migrations';

export class Migration20261123003114 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "webhook_endpoint" add column "previous_secret" varchar(128) null, add column "previous_secret_until" timestamptz(3) null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "webhook_endpoint" drop column "previous_secret", drop column "previous_secret_until";`);
  }
}
