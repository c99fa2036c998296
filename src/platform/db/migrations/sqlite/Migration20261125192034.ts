import { Migration } from '@mikro-orm/migrations';

export class Migration20261125192034 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`webhook_replay\` (\`id\` text not null, \`client_id\` text not null, \`endpoint_id\` text not null, \`requeued\` integer not null, \`requested_at\` datetime not null, constraint \`webhook_replay_client_id_foreign\` foreign key(\`client_id\`) references \`api_client\`(\`id\`) on delete cascade on update cascade, primary key (\`id\`));`,
    );
    this.addSql(`create index \`webhook_replay_client_idx\` on \`webhook_replay\` (\`client_id\`, \`requested_at\`);`);
    this.addSql(`alter table \`webhook_delivery\` add column \`replayed_at\` datetime null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists \`webhook_replay\`;`);
    this.addSql(`alter table \`webhook_delivery\` drop column \`replayed_at\`;`);
  }
}
