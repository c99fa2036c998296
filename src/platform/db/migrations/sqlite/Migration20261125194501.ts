import { Migration } from '@mikro-orm/migrations';

/** The size of each quote request's risk information, by which reads of it are priced before it is loaded. */
export class Migration20261125194501 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table \`quote_request\` add column \`risk_information_bytes\` integer not null default 0;`);
    this.addSql(`update \`quote_request\` set \`risk_information_bytes\` = length(cast(\`risk_information\` as blob));`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table \`quote_request\` drop column \`risk_information_bytes\`;`);
  }
}
