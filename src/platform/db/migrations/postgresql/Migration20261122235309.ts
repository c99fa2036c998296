import { Migration } from '@mikro-orm/migrations';

export class Migration20261122235309 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "webhook_endpoint" ("id" varchar(36) not null, "owner_id" varchar(36) not null, "url" varchar(2048) not null, "event_types" jsonb not null, "description" varchar(200) not null default '', "secret" varchar(128) not null, "disabled_at" timestamptz(3) null, "disabled_reason" varchar(200) null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, constraint "webhook_endpoint_pkey" primary key ("id"));`,
    );

    this.addSql(
      `create table "webhook_delivery" ("id" varchar(64) not null, "endpoint_id" varchar(36) not null, "event_id" varchar(64) not null, "event_type" varchar(64) not null, "payload" text not null, "status" text check ("status" in ('PENDING', 'DELIVERED', 'FAILED')) not null default 'PENDING', "attempts" int not null default 0, "next_attempt_at" timestamptz(3) null, "last_attempt_at" timestamptz(3) null, "last_status_code" int null, "last_error" varchar(1000) null, "delivered_at" timestamptz(3) null, "lease_owner" varchar(36) null, "lease_until" timestamptz(3) null, "created_at" timestamptz(3) not null, constraint "webhook_delivery_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "webhook_delivery_endpoint_idx" on "webhook_delivery" ("endpoint_id", "created_at");`);
    this.addSql(`create index "webhook_delivery_due_idx" on "webhook_delivery" ("status", "next_attempt_at");`);

    this.addSql(
      `alter table "webhook_endpoint" add constraint "webhook_endpoint_owner_id_foreign" foreign key ("owner_id") references "api_client" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "webhook_delivery" add constraint "webhook_delivery_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoint" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "webhook_delivery" drop constraint "webhook_delivery_endpoint_id_foreign";`);

    this.addSql(`drop table if exists "webhook_endpoint" cascade;`);

    this.addSql(`drop table if exists "webhook_delivery" cascade;`);
  }
}
