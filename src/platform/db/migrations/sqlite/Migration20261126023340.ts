import { Migration } from '@mikro-orm/migrations';

export class Migration20261126023340 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table \`quote_request\` add column \`traceparent\` text null;`);
  }
}
