import { ArgsType, Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { AccessSurface, Role } from '../../access';
import { LIMITS } from '../../platform/validation/rules';
import { TimestampScalar } from '../../platform/validation/timestamp';

@ObjectType('AccessLogParty', { simpleResolvers: true, description: "The reading client's insurer or broker company." })
export class AccessLogPartyView {
  @Field(() => ID)
  id!: string;

  @Field(() => String, { nullable: true, description: 'Null when the party no longer exists.' })
  name!: string | null;
}

@ObjectType('AccessLogEntry', {
  simpleResolvers: true,
  description: "Reads of a tender's personal data by one client on one operation, counted within the minute from `at`.",
})
export class AccessLogEntryView {
  @Field(() => ID)
  tenderId!: string;

  @Field(() => TimestampScalar, { description: 'The first read this entry counts.' })
  at!: Date;

  @Field(() => String, { description: 'app_id of the reading client.' })
  appId!: string;

  @Field(() => Role)
  role!: Role;

  @Field(() => AccessLogPartyView)
  party!: AccessLogPartyView;

  @Field(() => AccessSurface)
  surface!: AccessSurface;

  @Field(() => String, { description: 'The GraphQL field or the REST route.' })
  operation!: string;

  @Field(() => Int, { description: 'Reads within the minute from `at`.' })
  count!: number;
}

@ObjectType('AccessLogPage', { simpleResolvers: true })
export class AccessLogPage {
  @Field(() => Int, { description: 'Total number of matching entries, not the page size.' })
  count!: number;

  @Field(() => Int)
  skip!: number;

  @Field(() => Int)
  limit!: number;

  @Field(() => [AccessLogEntryView], { description: 'Newest first.' })
  items!: AccessLogEntryView[];
}

@ArgsType()
export class AccessLogPaging {
  @Field(() => Int, { defaultValue: 0 })
  skip: number = 0;

  @Field(() => Int, { defaultValue: LIMITS.defaultPageSize, description: `Page size, 1 to ${LIMITS.pageSize}.` })
  limit: number = LIMITS.defaultPageSize;
}

@InputType('AccessLogFilter')
export class AccessLogFilter {
  @Field(() => String, { nullable: true, description: 'Only reads of this client (app_id).' })
  clientId?: string;

  @Field(() => TimestampScalar, { nullable: true, description: 'Only entries at or after this instant.' })
  from?: Date;

  @Field(() => TimestampScalar, { nullable: true, description: 'Only entries before this instant.' })
  to?: Date;
}
