import { Migration } from '@mikro-orm/migrations';

/** Tender lifecycle: history, ordered option, risk information, policy documentation. */
export class Migration20261122000657 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`tender_history_entry\` (\`id\` text not null, \`tender_id\` text not null, \`at\` datetime not null, \`actor\` text not null, \`actor_role\` text check (\`actor_role\` in ('insurer', 'broker', 'internal', 'analyst')) not null, \`from_status\` text check (\`from_status\` in ('QUOTES_AVAILABLE', 'IN_NEGOTIATION', 'IN_COVERNOTE', 'REOPENED', 'SUCCESSFUL', 'CLOSED')) null, \`to_status\` text check (\`to_status\` in ('QUOTES_AVAILABLE', 'IN_NEGOTIATION', 'IN_COVERNOTE', 'REOPENED', 'SUCCESSFUL', 'CLOSED')) not null, \`reason\` text null, constraint \`tender_history_entry_tender_id_foreign\` foreign key(\`tender_id\`) references \`tender\`(\`id\`) on update cascade, primary key (\`id\`));`,
    );
    this.addSql(`create index \`tender_history_entry_tender_at_idx\` on \`tender_history_entry\` (\`tender_id\`, \`at\`);`);
    this.addSql(
      `alter table \`tender\` add column \`ordered_option_id\` text null constraint \`tender_ordered_option_id_foreign\` references \`quote_option\` (\`id\`) on update cascade on delete set null;`,
    );
    this.addSql(`alter table \`tender\` add column \`risk_information\` json null;`);
    this.addSql(`alter table \`tender\` add column \`policy_number\` text null;`);
    this.addSql(`alter table \`tender\` add column \`policy_confirmed_at\` datetime null;`);
  }
}
