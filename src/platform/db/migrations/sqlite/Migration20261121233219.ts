import { Migration } from '@mikro-orm/migrations';

export class Migration20261121233219 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`broker_company\` (\`id\` text not null, \`company_id\` text not null, \`email\` text not null, \`name\` text not null, \`address_street\` text not null default '', \`address_house_number\` text not null default '', \`address_zip\` text not null default '', \`address_city\` text not null default '', \`address_country\` text not null default '', primary key (\`id\`));`,
    );

    this.addSql(
      `create table \`customer\` (\`id\` text not null, \`company_id\` text not null, \`name\` text not null, \`address_street\` text not null default '', \`address_house_number\` text not null default '', \`address_zip\` text not null default '', \`address_city\` text not null default '', \`address_country\` text not null default '', primary key (\`id\`));`,
    );

    this.addSql(
      `create table \`insurer\` (\`id\` text not null, \`name\` text not null, \`quote_api_url\` text not null, \`outbound_credential\` text null, \`created_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create unique index \`insurer_name_unique\` on \`insurer\` (\`name\`);`);

    this.addSql(
      `create table \`api_client\` (\`id\` text not null, \`app_id\` text not null, \`secret_hash\` text not null, \`role\` text check (\`role\` in ('insurer', 'broker', 'internal', 'analyst')) not null, \`insurer_id\` text null, \`broker_company_id\` text null, \`description\` text not null default '', \`created_at\` datetime not null, constraint \`api_client_insurer_id_foreign\` foreign key(\`insurer_id\`) references \`insurer\`(\`id\`) on delete set null on update cascade, constraint \`api_client_broker_company_id_foreign\` foreign key(\`broker_company_id\`) references \`broker_company\`(\`id\`) on delete set null on update cascade, primary key (\`id\`));`,
    );
    this.addSql(`create unique index \`api_client_app_id_unique\` on \`api_client\` (\`app_id\`);`);
    this.addSql(`create index \`api_client_insurer_id_index\` on \`api_client\` (\`insurer_id\`);`);
    this.addSql(`create index \`api_client_broker_company_id_index\` on \`api_client\` (\`broker_company_id\`);`);

    this.addSql(`create table \`line_of_business\` (\`id\` text not null, \`name\` text not null, primary key (\`id\`));`);
    this.addSql(`create unique index \`line_of_business_name_unique\` on \`line_of_business\` (\`name\`);`);

    this.addSql(
      `create table \`person\` (\`id\` text not null, \`account_id\` text not null, \`email\` text not null, \`first_name\` text not null, \`last_name\` text not null, \`salutation\` text not null default '', \`broker_company_id\` text null, constraint \`person_broker_company_id_foreign\` foreign key(\`broker_company_id\`) references \`broker_company\`(\`id\`) on delete set null on update cascade, primary key (\`id\`));`,
    );
    this.addSql(`create index \`person_broker_company_id_index\` on \`person\` (\`broker_company_id\`);`);

    this.addSql(
      `create table \`revoked_token\` (\`jti\` text not null, \`expires_at\` datetime not null, \`revoked_at\` datetime not null, primary key (\`jti\`));`,
    );
    this.addSql(`create index \`revoked_token_expires_at_index\` on \`revoked_token\` (\`expires_at\`);`);

    this.addSql(
      `create table \`tender\` (\`id\` text not null, \`product\` text not null, \`status\` text check (\`status\` in ('QUOTES_AVAILABLE', 'IN_NEGOTIATION', 'IN_COVERNOTE', 'REOPENED', 'SUCCESSFUL', 'CLOSED')) not null default 'QUOTES_AVAILABLE', \`tax_rate\` double precision not null, \`line_of_business_id\` text not null, \`customer_id\` text not null, \`broker_company_id\` text not null, \`person_in_charge_id\` text not null, \`awarded_insurer_id\` text null, \`changes_metadata\` json not null, \`created_at\` datetime not null, \`updated_at\` datetime not null, \`version\` integer not null default 1, constraint \`tender_line_of_business_id_foreign\` foreign key(\`line_of_business_id\`) references \`line_of_business\`(\`id\`) on update cascade, constraint \`tender_customer_id_foreign\` foreign key(\`customer_id\`) references \`customer\`(\`id\`) on update cascade, constraint \`tender_broker_company_id_foreign\` foreign key(\`broker_company_id\`) references \`broker_company\`(\`id\`) on update cascade, constraint \`tender_person_in_charge_id_foreign\` foreign key(\`person_in_charge_id\`) references \`person\`(\`id\`) on update cascade, constraint \`tender_awarded_insurer_id_foreign\` foreign key(\`awarded_insurer_id\`) references \`insurer\`(\`id\`) on delete set null on update cascade, primary key (\`id\`));`,
    );
    this.addSql(`create index \`tender_broker_created_at_idx\` on \`tender\` (\`broker_company_id\`, \`created_at\`);`);
    this.addSql(`create index \`tender_lob_created_at_idx\` on \`tender\` (\`line_of_business_id\`, \`created_at\`);`);
    this.addSql(`create index \`tender_product_created_at_idx\` on \`tender\` (\`product\`, \`created_at\`);`);
    this.addSql(`create index \`tender_status_created_at_idx\` on \`tender\` (\`status\`, \`created_at\`);`);
    this.addSql(`create index \`tender_updated_at_id_idx\` on \`tender\` (\`updated_at\`, \`id\`);`);
    this.addSql(`create index \`tender_created_at_id_idx\` on \`tender\` (\`created_at\`, \`id\`);`);

    this.addSql(
      `create table \`tender_invitation\` (\`id\` text not null, \`tender_id\` text not null, \`insurer_id\` text not null, \`created_at\` datetime not null, constraint \`tender_invitation_tender_id_foreign\` foreign key(\`tender_id\`) references \`tender\`(\`id\`) on update cascade, constraint \`tender_invitation_insurer_id_foreign\` foreign key(\`insurer_id\`) references \`insurer\`(\`id\`) on update cascade, primary key (\`id\`));`,
    );
    this.addSql(`create index \`tender_invitation_tender_id_index\` on \`tender_invitation\` (\`tender_id\`);`);
    this.addSql(
      `create unique index \`tender_invitation_insurer_tender_unique\` on \`tender_invitation\` (\`insurer_id\`, \`tender_id\`);`,
    );
  }
}
