import { Migration } from '@mikro-orm/migrations';

export class Migration20261125230011 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`document\` (\`id\` text not null, \`tender_id\` text not null, \`kind\` text check (\`kind\` in ('RISK', 'QUOTE', 'POLICY', 'OTHER')) not null, \`filename\` text not null, \`content_type\` text not null, \`size\` integer not null, \`sha256\` text not null, \`added_by\` text not null, \`added_by_role\` text not null, \`quote_request_id\` text null, \`state\` text check (\`state\` in ('PENDING', 'AVAILABLE')) not null default 'PENDING', \`upload_token_hash\` text null, \`upload_expires_at\` datetime null, \`created_at\` datetime not null, constraint \`document_tender_id_foreign\` foreign key(\`tender_id\`) references \`tender\`(\`id\`) on delete cascade on update cascade, constraint \`document_quote_request_id_foreign\` foreign key(\`quote_request_id\`) references \`quote_request\`(\`id\`) on delete cascade on update cascade, primary key (\`id\`));`,
    );
    this.addSql(`create unique index \`document_upload_token_unique\` on \`document\` (\`upload_token_hash\`);`);
    this.addSql(`create index \`document_sha256_idx\` on \`document\` (\`sha256\`);`);
    this.addSql(`create index \`document_state_expires_idx\` on \`document\` (\`state\`, \`upload_expires_at\`);`);
    this.addSql(`create index \`document_tender_created_at_idx\` on \`document\` (\`tender_id\`, \`created_at\`);`);

    this.addSql(`alter table \`tender\` add column \`policy_document_id\` text null;`);
  }
}
