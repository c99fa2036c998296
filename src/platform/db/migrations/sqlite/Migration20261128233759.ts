import { Migration } from '@mikro-orm/migrations';

export class Migration20261128233759 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table \`tender\` add column \`renewal_type\` text null;`);
    this.addSql(`alter table \`tender\` add column \`notice_period_months\` integer null;`);
    this.addSql(`alter table \`tender\` add column \`renewal_period_end\` text null;`);
    this.addSql(`alter table \`tender\` add column \`notice_deadline\` datetime null;`);
    this.addSql(`alter table \`tender\` add column \`renewal_reminders\` integer null;`);
    this.addSql(`alter table \`tender\` add column \`renewal_sweep_at\` datetime null;`);
    this.addSql(`alter table \`tender\` add column \`renewal_decision\` text null;`);
    this.addSql(`alter table \`tender\` add column \`renewal_decision_reason\` text null;`);
    this.addSql(`alter table \`tender\` add column \`renewal_decided_at\` datetime null;`);
    this.addSql(`alter table \`tender\` add column \`non_renewal_notified_at\` datetime null;`);
    this.addSql(`alter table \`tender\` add column \`non_renewal_reason\` text null;`);
    this.addSql(`alter table \`tender\` add column \`renewal_of\` text null;`);
    this.addSql(`alter table \`tender\` add column \`renewed_by\` text null;`);
    this.addSql(`create index \`tender_renewal_sweep_at_idx\` on \`tender\` (\`renewal_sweep_at\`);`);
    this.addSql(`create index \`tender_broker_notice_deadline_idx\` on \`tender\` (\`broker_company_id\`, \`notice_deadline\`, \`id\`);`);
    this.addSql(`create index \`tender_notice_deadline_idx\` on \`tender\` (\`notice_deadline\`, \`id\`);`);
  }
}
