import { Migration } from '@mikro-orm/migrations';

export class Migration20261128233802 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "tender" add column "renewal_type" varchar(16) null, add column "notice_period_months" int null, add column "renewal_period_end" varchar(10) null, add column "notice_deadline" timestamptz(3) null, add column "renewal_reminders" int null, add column "renewal_sweep_at" timestamptz(3) null, add column "renewal_decision" varchar(32) null, add column "renewal_decision_reason" text null, add column "renewal_decided_at" timestamptz(3) null, add column "non_renewal_notified_at" timestamptz(3) null, add column "non_renewal_reason" text null, add column "renewal_of" varchar(36) null, add column "renewed_by" varchar(36) null;`,
    );
    this.addSql(`create index "tender_renewal_sweep_at_idx" on "tender" ("renewal_sweep_at");`);
    this.addSql(`create index "tender_broker_notice_deadline_idx" on "tender" ("broker_company_id", "notice_deadline", "id");`);
    this.addSql(`create index "tender_notice_deadline_idx" on "tender" ("notice_deadline", "id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "tender_renewal_sweep_at_idx";`);
    this.addSql(`drop index "tender_broker_notice_deadline_idx";`);
    this.addSql(`drop index "tender_notice_deadline_idx";`);
    this.addSql(
      `alter table "tender" drop column "renewal_type", drop column "notice_period_months", drop column "renewal_period_end", drop column "notice_deadline", drop column "renewal_reminders", drop column "renewal_sweep_at", drop column "renewal_decision", drop column "renewal_decision_reason", drop column "renewal_decided_at", drop column "non_renewal_notified_at", drop column "non_renewal_reason", drop column "renewal_of", drop column "renewed_by";`,
    );
  }
}
