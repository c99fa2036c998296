import { Migration } from '@mikro-orm/migrations';

/** Quotation integration: the quote-request outbox, quote options and early callbacks. */
export class Migration20261121235422 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`early_callback\` (\`id\` text not null, \`insurer_id\` text not null, \`insurer_reference\` text not null, \`received_at\` datetime not null, constraint \`early_callback_insurer_id_foreign\` foreign key(\`insurer_id\`) references \`insurer\`(\`id\`) on update cascade, primary key (\`id\`));`,
    );
    this.addSql(
      `create unique index \`early_callback_insurer_reference_unique\` on \`early_callback\` (\`insurer_id\`, \`insurer_reference\`);`,
    );

    this.addSql(
      `create table \`quote_request\` (\`id\` text not null, \`tender_id\` text not null, \`insurer_id\` text not null, \`status\` text check (\`status\` in ('QUEUED', 'PROCESSING', 'AVAILABLE', 'QUOTED', 'DECLINED', 'FAILED')) not null default 'QUEUED', \`limits\` json not null, \`risk_information\` json not null, \`insurer_reference\` text null, \`attempts\` integer not null default 0, \`next_attempt_at\` datetime null, \`last_error\` text null, \`failure_reason\` text null, \`lease_owner\` text null, \`lease_until\` datetime null, \`requested_by\` text not null, \`acknowledged_at\` datetime null, \`callback_received_at\` datetime null, \`quoted_at\` datetime null, \`created_at\` datetime not null, \`updated_at\` datetime not null, constraint \`quote_request_tender_id_foreign\` foreign key(\`tender_id\`) references \`tender\`(\`id\`) on update cascade, constraint \`quote_request_insurer_id_foreign\` foreign key(\`insurer_id\`) references \`insurer\`(\`id\`) on update cascade, primary key (\`id\`));`,
    );
    this.addSql(`create index \`quote_request_tender_id_index\` on \`quote_request\` (\`tender_id\`);`);
    this.addSql(`create index \`quote_request_due_idx\` on \`quote_request\` (\`status\`, \`next_attempt_at\`);`);
    this.addSql(
      `create unique index \`quote_request_insurer_reference_unique\` on \`quote_request\` (\`insurer_id\`, \`insurer_reference\`);`,
    );

    this.addSql(
      `create table \`quote_option\` (\`id\` text not null, \`quote_request_id\` text not null, \`position\` integer not null, \`insurance_sum\` double precision not null, \`deductible\` double precision not null, \`premium\` double precision not null, constraint \`quote_option_quote_request_id_foreign\` foreign key(\`quote_request_id\`) references \`quote_request\`(\`id\`) on update cascade, primary key (\`id\`));`,
    );
    this.addSql(`create index \`quote_option_quote_request_id_index\` on \`quote_option\` (\`quote_request_id\`);`);
  }
}
