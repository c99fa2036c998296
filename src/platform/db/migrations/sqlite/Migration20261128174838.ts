import { Migration } from '@mikro-orm/migrations';

/**
 * Capability links (src/links): the questionnaire's and the underwriter's page links, each kept as the SHA-256 of its
 * token (unique, how a request finds its link), the salt it is derived from, its expiry and revocation.
 */
export class Migration20261128174838 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`access_link\` (\`id\` text not null, \`kind\` text check (\`kind\` in ('QUESTIONNAIRE', 'UNDERWRITING')) not null, \`tender_id\` text not null, \`quote_request_id\` text null, \`email\` text null, \`language\` text null, \`token_hash\` text not null, \`salt\` text not null, \`expires_at\` datetime not null, \`revoked_at\` datetime null, \`created_at\` datetime not null, \`created_by\` text null, primary key (\`id\`));`,
    );
    this.addSql(`create unique index \`access_link_token_hash_unique\` on \`access_link\` (\`token_hash\`);`);
    this.addSql(`create index \`access_link_tender_idx\` on \`access_link\` (\`tender_id\`, \`kind\`);`);
  }
}
