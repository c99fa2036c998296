import { Migration } from '@mikro-orm/migrations';

export class Migration20261122235305 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`webhook_endpoint\` (\`id\` text not null, \`owner_id\` text not null, \`url\` text not null, \`event_types\` json not null, \`description\` text not null default '', \`secret\` text not null, \`disabled_at\` datetime null, \`disabled_reason\` text null, \`created_at\` datetime not null, \`updated_at\` datetime not null, constraint \`webhook_endpoint_owner_id_foreign\` foreign key(\`owner_id\`) references \`api_client\`(\`id\`) on delete cascade on update cascade, primary key (\`id\`));`,
    );
    this.addSql(`create index \`webhook_endpoint_owner_id_index\` on \`webhook_endpoint\` (\`owner_id\`);`);

    this.addSql(
      `create table \`webhook_delivery\` (\`id\` text not null, \`endpoint_id\` text not null, \`event_id\` text not null, \`event_type\` text not null, \`payload\` text not null, \`status\` text check (\`status\` in ('PENDING', 'DELIVERED', 'FAILED')) not null default 'PENDING', \`attempts\` integer not null default 0, \`next_attempt_at\` datetime null, \`last_attempt_at\` datetime null, \`last_status_code\` integer null, \`last_error\` text null, \`delivered_at\` datetime null, \`lease_owner\` text null, \`lease_until\` datetime null, \`created_at\` datetime not null, constraint \`webhook_delivery_endpoint_id_foreign\` foreign key(\`endpoint_id\`) references \`webhook_endpoint\`(\`id\`) on delete cascade on update cascade, primary key (\`id\`));`,
    );
    this.addSql(`create index \`webhook_delivery_endpoint_idx\` on \`webhook_delivery\` (\`endpoint_id\`, \`created_at\`);`);
    this.addSql(`create index \`webhook_delivery_due_idx\` on \`webhook_delivery\` (\`status\`, \`next_attempt_at\`);`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists \`webhook_delivery\`;`);
    this.addSql(`drop table if exists \`webhook_endpoint\`;`);
  }
}
