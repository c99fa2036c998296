import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 41, the bind gate: subjectivities become things (`subjectivity`, each with its status, due date and steps in
 * `subjectivity_step`), the tender records the answer to its order and its policy period, and its history names the
 * binding's steps. Every subjectivity quoted so far (`quote_option.subjectivities`) becomes an OPEN row, in the
 * insurer's order, dated when its quote was last changed. New tables and nullable columns only: no table is rebuilt.
 */
export class Migration20261128175728 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`subjectivity\` (\`id\` text not null, \`tender_id\` text not null, \`quote_request_id\` text not null, \`insurer_id\` text not null, \`quote_option_id\` text not null, \`position\` integer not null, \`stage\` text check (\`stage\` in ('PRE_BIND', 'POST_BIND')) not null, \`text\` text not null, \`due_at\` datetime null, \`status\` text check (\`status\` in ('OPEN', 'RESPONDED', 'ACCEPTED', 'REJECTED', 'WAIVED')) not null default 'OPEN', \`overdue_at\` datetime null, \`created_at\` datetime not null, \`updated_at\` datetime not null, constraint \`subjectivity_tender_id_foreign\` foreign key(\`tender_id\`) references \`tender\`(\`id\`) on update cascade, constraint \`subjectivity_quote_request_id_foreign\` foreign key(\`quote_request_id\`) references \`quote_request\`(\`id\`) on update cascade, constraint \`subjectivity_insurer_id_foreign\` foreign key(\`insurer_id\`) references \`insurer\`(\`id\`) on update cascade, constraint \`subjectivity_quote_option_id_foreign\` foreign key(\`quote_option_id\`) references \`quote_option\`(\`id\`) on update cascade, primary key (\`id\`));`,
    );
    this.addSql(`create index \`subjectivity_due_idx\` on \`subjectivity\` (\`due_at\`);`);
    this.addSql(`create index \`subjectivity_option_idx\` on \`subjectivity\` (\`quote_option_id\`);`);
    this.addSql(`create index \`subjectivity_tender_idx\` on \`subjectivity\` (\`tender_id\`);`);

    this.addSql(
      `create table \`subjectivity_step\` (\`id\` text not null, \`subjectivity_id\` text not null, \`at\` datetime not null, \`actor\` text not null, \`actor_role\` text check (\`actor_role\` in ('insurer', 'broker', 'internal', 'analyst')) not null, \`kind\` text check (\`kind\` in ('RESPONDED', 'ACCEPTED', 'REJECTED', 'WAIVED')) not null, \`text\` text null, \`document_ids\` json null, constraint \`subjectivity_step_subjectivity_id_foreign\` foreign key(\`subjectivity_id\`) references \`subjectivity\`(\`id\`) on update cascade, primary key (\`id\`));`,
    );
    this.addSql(`create index \`subjectivity_step_subjectivity_at_idx\` on \`subjectivity_step\` (\`subjectivity_id\`, \`at\`);`);

    this.addSql(`alter table \`tender\` add column \`cover_ordered_at\` datetime null;`);
    this.addSql(`alter table \`tender\` add column \`cover_accepted_at\` datetime null;`);
    this.addSql(`alter table \`tender\` add column \`inception_date\` text null;`);
    this.addSql(`alter table \`tender\` add column \`cover_order_overdue_at\` datetime null;`);
    this.addSql(`alter table \`tender\` add column \`policy_period_start\` text null;`);
    this.addSql(`alter table \`tender\` add column \`policy_period_end\` text null;`);

    this.addSql(`alter table \`tender_history_entry\` add column \`step\` text null;`);
    this.addSql(`alter table \`tender_history_entry\` add column \`subjectivity_id\` text null;`);
    this.addSql(`alter table \`tender_history_entry\` add column \`insurer_id\` text null;`);

    // A version 4 UUID per row, as newId() makes them.
    const uuid = `lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-' ||
      substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))`;
    this
      .addSql(`insert into \`subjectivity\` (\`id\`, \`tender_id\`, \`quote_request_id\`, \`insurer_id\`, \`quote_option_id\`, \`position\`,
        \`stage\`, \`text\`, \`due_at\`, \`status\`, \`created_at\`, \`updated_at\`)
      select ${uuid}, qr.\`tender_id\`, qr.\`id\`, qr.\`insurer_id\`, o.\`id\`, cast(j.\`key\` as integer),
        json_extract(j.\`value\`, '$.stage'), json_extract(j.\`value\`, '$.text'), null, 'OPEN', qr.\`updated_at\`, qr.\`updated_at\`
      from \`quote_option\` o join \`quote_request\` qr on qr.\`id\` = o.\`quote_request_id\`, json_each(o.\`subjectivities\`) j
      where o.\`subjectivities\` is not null and json_type(o.\`subjectivities\`) = 'array';`);
  }
}
