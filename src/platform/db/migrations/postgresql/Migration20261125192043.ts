import { Migration } from '@mikro-orm/migrations';

export class Migration20261125192043 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "webhook_replay" ("id" varchar(36) not null, "client_id" varchar(36) not null, "endpoint_id" varchar(36) not null, "requeued" int not null, "requested_at" timestamptz(3) not null, constraint "webhook_replay_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "webhook_replay_client_idx" on "webhook_replay" ("client_id", "requested_at");`);

    this.addSql(
      `alter table "webhook_replay" add constraint "webhook_replay_client_id_foreign" foreign key ("client_id") references "api_client" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(`alter table "webhook_delivery" add column "replayed_at" timestamptz(3) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "webhook_replay" cascade;`);

    this.addSql(`alter table "webhook_delivery" drop column "replayed_at";`);
  }
}
