import { Migration } from '@mikro-orm/migrations';

export class Migration20261123021021 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table \`tender_feed\` (\`scope\` text not null, \`revision\` bigint not null, primary key (\`scope\`));`);
    this.addSql(`drop index \`tender_broker_updated_at_idx\`;`);
    this.addSql(`drop index \`tender_broker_created_at_idx\`;`);
    this.addSql(`create index \`tender_broker_updated_at_id_idx\` on \`tender\` (\`broker_company_id\`, \`updated_at\`, \`id\`);`);
    this.addSql(`create index \`tender_broker_created_at_id_idx\` on \`tender\` (\`broker_company_id\`, \`created_at\`, \`id\`);`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists \`tender_feed\`;`);
    this.addSql(`drop index \`tender_broker_updated_at_id_idx\`;`);
    this.addSql(`drop index \`tender_broker_created_at_id_idx\`;`);
    this.addSql(`create index \`tender_broker_created_at_idx\` on \`tender\` (\`broker_company_id\`, \`created_at\`);`);
    this.addSql(`create index \`tender_broker_updated_at_idx\` on \`tender\` (\`broker_company_id\`, \`updated_at\`);`);
  }
}
