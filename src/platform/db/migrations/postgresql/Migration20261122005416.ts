import { Migration } from '@mikro-orm/migrations';

/** The whole schema as of the quotation integration and the tender lifecycle (SQLite has it in three steps). */
export class Migration20261122005416 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "broker_company" ("id" varchar(36) not null, "company_id" varchar(64) not null, "email" varchar(254) not null, "name" varchar(200) not null, "address_street" varchar(200) not null default '', "address_house_number" varchar(20) not null default '', "address_zip" varchar(20) not null default '', "address_city" varchar(100) not null default '', "address_country" varchar(2) not null default '', constraint "broker_company_pkey" primary key ("id"));`,
    );

    this.addSql(
      `create table "customer" ("id" varchar(36) not null, "company_id" varchar(64) not null, "name" varchar(200) not null, "address_street" varchar(200) not null default '', "address_house_number" varchar(20) not null default '', "address_zip" varchar(20) not null default '', "address_city" varchar(100) not null default '', "address_country" varchar(2) not null default '', constraint "customer_pkey" primary key ("id"));`,
    );

    this.addSql(
      `create table "insurer" ("id" varchar(36) not null, "name" varchar(200) not null, "quote_api_url" varchar(2048) not null, "outbound_credential" varchar(2048) null, "created_at" timestamptz(3) not null, constraint "insurer_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "insurer" add constraint "insurer_name_unique" unique ("name");`);

    this.addSql(
      `create table "early_callback" ("id" varchar(36) not null, "insurer_id" varchar(36) not null, "insurer_reference" varchar(200) not null, "received_at" timestamptz(3) not null, constraint "early_callback_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "early_callback" add constraint "early_callback_insurer_reference_unique" unique ("insurer_id", "insurer_reference");`,
    );

    this.addSql(
      `create table "api_client" ("id" varchar(36) not null, "app_id" varchar(64) not null, "secret_hash" varchar(256) not null, "role" text check ("role" in ('insurer', 'broker', 'internal', 'analyst')) not null, "insurer_id" varchar(36) null, "broker_company_id" varchar(36) null, "description" varchar(200) not null default '', "created_at" timestamptz(3) not null, constraint "api_client_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "api_client" add constraint "api_client_app_id_unique" unique ("app_id");`);

    this.addSql(
      `create table "line_of_business" ("id" varchar(36) not null, "name" varchar(100) not null, constraint "line_of_business_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "line_of_business" add constraint "line_of_business_name_unique" unique ("name");`);

    this.addSql(
      `create table "person" ("id" varchar(36) not null, "account_id" varchar(64) not null, "email" varchar(254) not null, "first_name" varchar(100) not null, "last_name" varchar(100) not null, "salutation" varchar(20) not null default '', "broker_company_id" varchar(36) null, constraint "person_pkey" primary key ("id"));`,
    );

    this.addSql(
      `create table "revoked_token" ("jti" varchar(64) not null, "expires_at" timestamptz(3) not null, "revoked_at" timestamptz(3) not null, constraint "revoked_token_pkey" primary key ("jti"));`,
    );
    this.addSql(`create index "revoked_token_expires_at_index" on "revoked_token" ("expires_at");`);

    this.addSql(
      `create table "tender" ("id" varchar(36) not null, "product" varchar(200) not null, "status" text check ("status" in ('QUOTES_AVAILABLE', 'IN_NEGOTIATION', 'IN_COVERNOTE', 'REOPENED', 'SUCCESSFUL', 'CLOSED')) not null default 'QUOTES_AVAILABLE', "tax_rate" double precision not null, "line_of_business_id" varchar(36) not null, "customer_id" varchar(36) not null, "broker_company_id" varchar(36) not null, "person_in_charge_id" varchar(36) not null, "awarded_insurer_id" varchar(36) null, "ordered_option_id" varchar(36) null, "risk_information" jsonb null, "policy_number" varchar(100) null, "policy_confirmed_at" timestamptz(3) null, "changes_metadata" jsonb not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "version" int not null default 1, constraint "tender_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "tender_broker_created_at_idx" on "tender" ("broker_company_id", "created_at");`);
    this.addSql(`create index "tender_lob_created_at_idx" on "tender" ("line_of_business_id", "created_at");`);
    this.addSql(`create index "tender_product_created_at_idx" on "tender" ("product", "created_at");`);
    this.addSql(`create index "tender_status_created_at_idx" on "tender" ("status", "created_at");`);
    this.addSql(`create index "tender_updated_at_id_idx" on "tender" ("updated_at", "id");`);
    this.addSql(`create index "tender_created_at_id_idx" on "tender" ("created_at", "id");`);

    this.addSql(
      `create table "quote_request" ("id" varchar(36) not null, "tender_id" varchar(36) not null, "insurer_id" varchar(36) not null, "status" text check ("status" in ('QUEUED', 'PROCESSING', 'AVAILABLE', 'QUOTED', 'DECLINED', 'FAILED')) not null default 'QUEUED', "limits" jsonb not null, "risk_information" jsonb not null, "insurer_reference" varchar(200) null, "attempts" int not null default 0, "next_attempt_at" timestamptz(3) null, "last_error" varchar(1000) null, "failure_reason" varchar(1000) null, "lease_owner" varchar(36) null, "lease_until" timestamptz(3) null, "requested_by" varchar(64) not null, "acknowledged_at" timestamptz(3) null, "callback_received_at" timestamptz(3) null, "quoted_at" timestamptz(3) null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, constraint "quote_request_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "quote_request_due_idx" on "quote_request" ("status", "next_attempt_at");`);
    this.addSql(
      `alter table "quote_request" add constraint "quote_request_insurer_reference_unique" unique ("insurer_id", "insurer_reference");`,
    );

    this.addSql(
      `create table "quote_option" ("id" varchar(36) not null, "quote_request_id" varchar(36) not null, "position" int not null, "insurance_sum" double precision not null, "deductible" double precision not null, "premium" double precision not null, constraint "quote_option_pkey" primary key ("id"));`,
    );

    this.addSql(
      `create table "tender_history_entry" ("id" varchar(36) not null, "tender_id" varchar(36) not null, "at" timestamptz(3) not null, "actor" varchar(64) not null, "actor_role" text check ("actor_role" in ('insurer', 'broker', 'internal', 'analyst')) not null, "from_status" text check ("from_status" in ('QUOTES_AVAILABLE', 'IN_NEGOTIATION', 'IN_COVERNOTE', 'REOPENED', 'SUCCESSFUL', 'CLOSED')) null, "to_status" text check ("to_status" in ('QUOTES_AVAILABLE', 'IN_NEGOTIATION', 'IN_COVERNOTE', 'REOPENED', 'SUCCESSFUL', 'CLOSED')) not null, "reason" varchar(1000) null, constraint "tender_history_entry_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "tender_history_entry_tender_at_idx" on "tender_history_entry" ("tender_id", "at");`);

    this.addSql(
      `create table "tender_invitation" ("id" varchar(36) not null, "tender_id" varchar(36) not null, "insurer_id" varchar(36) not null, "created_at" timestamptz(3) not null, constraint "tender_invitation_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "tender_invitation" add constraint "tender_invitation_insurer_tender_unique" unique ("insurer_id", "tender_id");`,
    );

    this.addSql(
      `alter table "early_callback" add constraint "early_callback_insurer_id_foreign" foreign key ("insurer_id") references "insurer" ("id") on update cascade;`,
    );

    this.addSql(
      `alter table "api_client" add constraint "api_client_insurer_id_foreign" foreign key ("insurer_id") references "insurer" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "api_client" add constraint "api_client_broker_company_id_foreign" foreign key ("broker_company_id") references "broker_company" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "person" add constraint "person_broker_company_id_foreign" foreign key ("broker_company_id") references "broker_company" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "tender" add constraint "tender_line_of_business_id_foreign" foreign key ("line_of_business_id") references "line_of_business" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "tender" add constraint "tender_customer_id_foreign" foreign key ("customer_id") references "customer" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "tender" add constraint "tender_broker_company_id_foreign" foreign key ("broker_company_id") references "broker_company" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "tender" add constraint "tender_person_in_charge_id_foreign" foreign key ("person_in_charge_id") references "person" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "tender" add constraint "tender_awarded_insurer_id_foreign" foreign key ("awarded_insurer_id") references "insurer" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "tender" add constraint "tender_ordered_option_id_foreign" foreign key ("ordered_option_id") references "quote_option" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "quote_request" add constraint "quote_request_tender_id_foreign" foreign key ("tender_id") references "tender" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "quote_request" add constraint "quote_request_insurer_id_foreign" foreign key ("insurer_id") references "insurer" ("id") on update cascade;`,
    );

    this.addSql(
      `alter table "quote_option" add constraint "quote_option_quote_request_id_foreign" foreign key ("quote_request_id") references "quote_request" ("id") on update cascade;`,
    );

    this.addSql(
      `alter table "tender_history_entry" add constraint "tender_history_entry_tender_id_foreign" foreign key ("tender_id") references "tender" ("id") on update cascade;`,
    );

    this.addSql(
      `alter table "tender_invitation" add constraint "tender_invitation_tender_id_foreign" foreign key ("tender_id") references "tender" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "tender_invitation" add constraint "tender_invitation_insurer_id_foreign" foreign key ("insurer_id") references "insurer" ("id") on update cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "api_client" drop constraint "api_client_broker_company_id_foreign";`);

    this.addSql(`alter table "person" drop constraint "person_broker_company_id_foreign";`);

    this.addSql(`alter table "tender" drop constraint "tender_broker_company_id_foreign";`);

    this.addSql(`alter table "tender" drop constraint "tender_customer_id_foreign";`);

    this.addSql(`alter table "early_callback" drop constraint "early_callback_insurer_id_foreign";`);

    this.addSql(`alter table "api_client" drop constraint "api_client_insurer_id_foreign";`);

    this.addSql(`alter table "tender" drop constraint "tender_awarded_insurer_id_foreign";`);

    this.addSql(`alter table "quote_request" drop constraint "quote_request_insurer_id_foreign";`);

    this.addSql(`alter table "tender_invitation" drop constraint "tender_invitation_insurer_id_foreign";`);

    this.addSql(`alter table "tender" drop constraint "tender_line_of_business_id_foreign";`);

    this.addSql(`alter table "tender" drop constraint "tender_person_in_charge_id_foreign";`);

    this.addSql(`alter table "quote_request" drop constraint "quote_request_tender_id_foreign";`);

    this.addSql(`alter table "tender_history_entry" drop constraint "tender_history_entry_tender_id_foreign";`);

    this.addSql(`alter table "tender_invitation" drop constraint "tender_invitation_tender_id_foreign";`);

    this.addSql(`alter table "quote_option" drop constraint "quote_option_quote_request_id_foreign";`);

    this.addSql(`alter table "tender" drop constraint "tender_ordered_option_id_foreign";`);

    this.addSql(`drop table if exists "broker_company" cascade;`);

    this.addSql(`drop table if exists "customer" cascade;`);

    this.addSql(`drop table if exists "insurer" cascade;`);

    this.addSql(`drop table if exists "early_callback" cascade;`);

    this.addSql(`drop table if exists "api_client" cascade;`);

    this.addSql(`drop table if exists "line_of_business" cascade;`);

    this.addSql(`drop table if exists "person" cascade;`);

    this.addSql(`drop table if exists "revoked_token" cascade;`);

    this.addSql(`drop table if exists "tender" cascade;`);

    this.addSql(`drop table if exists "quote_request" cascade;`);

    this.addSql(`drop table if exists "quote_option" cascade;`);

    this.addSql(`drop table if exists "tender_history_entry" cascade;`);

    this.addSql(`drop table if exists "tender_invitation" cascade;`);
  }
}
