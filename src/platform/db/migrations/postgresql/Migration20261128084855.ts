import { Migration } from '@mikro-orm/migrations';

export class Migration20261128084855 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "document_removal" add column "store" varchar(255) null;`);

    this.addSql(`alter table "document" add column "store" varchar(255) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "document" drop column "store";`);

    this.addSql(`alter table "document_removal" drop column "store";`);
  }
}
