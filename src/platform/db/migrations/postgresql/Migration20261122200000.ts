import { Migration } from '@mikro-orm/migrations';

export class Migration20261122200000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "api_client" add column "disabled_at" timestamptz(3) null, add column "token_generation" int not null default 0;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "api_client" drop column "disabled_at", drop column "token_generation";`);
  }
}
