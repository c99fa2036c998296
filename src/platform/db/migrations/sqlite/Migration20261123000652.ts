import { Migration } from '@mikro-orm/migrations';

export class Migration20261123000652 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`insurer_check\` (\`id\` text not null, \`insurer_id\` text not null, \`insurer_reference\` text null, \`started_at\` datetime not null, \`expires_at\` datetime not null, \`callbacks\` integer not null default 0, \`first_callback_at\` datetime null, \`last_callback_at\` datetime null, constraint \`insurer_check_insurer_id_foreign\` foreign key(\`insurer_id\`) references \`insurer\`(\`id\`) on update cascade, primary key (\`id\`));`,
    );
    this.addSql(`create index \`insurer_check_insurer_reference_idx\` on \`insurer_check\` (\`insurer_id\`, \`insurer_reference\`);`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists \`insurer_check\`;`);
  }
}
