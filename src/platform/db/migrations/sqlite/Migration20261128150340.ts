import { Migration } from '@mikro-orm/migrations';
import { rebuildTable, withForeignKeysOff } from './table-rebuild';

const STATUSES_BEFORE =
  "'QUEUED', 'PROCESSING', 'AVAILABLE', 'QUOTED', 'DECLINED', 'REFERRED', 'EXPIRED', 'AWAITING_MANUAL', 'FAILED', 'CANCELLED'";
const STATUSES_AFTER =
  "'QUEUED', 'PROCESSING', 'AVAILABLE', 'QUOTED', 'DECLINED', 'REFERRED', 'EXPIRED', 'AWAITING_MANUAL', 'AWAITING_INFORMATION', 'FAILED', 'CANCELLED'";

/**
 * The risk assessment (issue 39): question sets per product and version, insurers' requirements, a tender's answers;
 * and quote requests that wait for answers (AWAITING_INFORMATION), for which `quote_request` is rebuilt with the new
 * status in its CHECK (table-rebuild.ts).
 */
export class Migration20261128150340 extends Migration {
  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    const execute = (sql: string) => this.execute(sql);
    await withForeignKeysOff(execute, async () => {
      await this.execute(
        `create table \`insurer_requirement\` (\`id\` text not null, \`insurer_id\` text not null, \`product\` text not null, \`pointers\` json not null, \`effective_from\` datetime not null, \`set_by\` text not null, \`set_at\` datetime not null, constraint \`insurer_requirement_insurer_id_foreign\` foreign key(\`insurer_id\`) references \`insurer\`(\`id\`) on update cascade, primary key (\`id\`));`,
      );
      await this.execute(
        `create index \`insurer_requirement_lookup_idx\` on \`insurer_requirement\` (\`insurer_id\`, \`product\`, \`effective_from\`);`,
      );
      await this.execute(
        `create table \`question_set\` (\`id\` text not null, \`product\` text not null, \`line_of_business_id\` text not null, \`version\` integer not null, \`schema_json\` text not null, \`digest\` text not null, \`published_by\` text not null, \`published_at\` datetime not null, \`retired_at\` datetime null, constraint \`question_set_line_of_business_id_foreign\` foreign key(\`line_of_business_id\`) references \`line_of_business\`(\`id\`) on update cascade, primary key (\`id\`));`,
      );
      await this.execute(`create index \`question_set_line_of_business_idx\` on \`question_set\` (\`line_of_business_id\`);`);
      await this.execute(`create unique index \`question_set_product_version_unique\` on \`question_set\` (\`product\`, \`version\`);`);
      await this.execute(
        `create table \`risk_assessment\` (\`id\` text not null, \`tender_id\` text not null, \`product\` text not null, \`question_set_version\` integer not null, \`answers\` json not null, \`sources\` json not null, \`status\` text check (\`status\` in ('DRAFT', 'SUBMITTED')) not null default 'DRAFT', \`version\` integer not null default 1, \`frozen_at\` datetime null, \`submitted_at\` datetime null, \`erased_at\` datetime null, \`created_at\` datetime not null, \`updated_at\` datetime not null, constraint \`risk_assessment_tender_id_foreign\` foreign key(\`tender_id\`) references \`tender\`(\`id\`) on update cascade, primary key (\`id\`));`,
      );
      await this.execute(`create unique index \`risk_assessment_tender_unique\` on \`risk_assessment\` (\`tender_id\`);`);
      await rebuildTable(execute, 'quote_request', (sql) => sql.replace(STATUSES_BEFORE, STATUSES_AFTER));
    });
  }

  override async down(): Promise<void> {
    const execute = (sql: string) => this.execute(sql);
    await withForeignKeysOff(execute, async () => {
      await execute("update `quote_request` set `status` = 'CANCELLED', `next_attempt_at` = null where `status` = 'AWAITING_INFORMATION';");
      await rebuildTable(execute, 'quote_request', (sql) => sql.replace(STATUSES_AFTER, STATUSES_BEFORE));
      for (const table of ['risk_assessment', 'question_set', 'insurer_requirement']) await execute(`drop table \`${table}\`;`);
    });
  }
}
