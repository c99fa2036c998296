import { JSONObjectScalar } from '../../platform/validation/json';
import { ArgsType, Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { TimestampScalar } from '../../platform/validation/timestamp';
import { Role } from '../../access';
import { BrokerCompany, Customer, Person } from '../../parties';
import { LineOfBusiness } from '../line-of-business.entity';
import { TenderStatus } from '../tender-status';
import { LIMITS } from '../../platform/validation/rules';

@ObjectType('TenderHistoryEntry', { simpleResolvers: true, description: 'One status change: who, when, from, to, why.' })
export class TenderHistoryEntryView {
  @Field(() => TimestampScalar)
  at!: Date;

  @Field(() => String, { nullable: true, description: 'app_id of the client that made the change; withheld from insurers.' })
  actor!: string | null;

  @Field(() => Role)
  actorRole!: Role;

  @Field(() => TenderStatus, { nullable: true, description: 'Null for the creation.' })
  fromStatus!: TenderStatus | null;

  @Field(() => TenderStatus)
  toStatus!: TenderStatus;

  @Field(() => String, { nullable: true })
  reason!: string | null;
}

export enum PolicyDocumentationStatus {
  PENDING = 'PENDING',
  CONFIRMED = 'CONFIRMED',
}
registerEnumType(PolicyDocumentationStatus, { name: 'PolicyDocumentationStatus' });

@ObjectType('PolicyDocumentation', {
  simpleResolvers: true,
  description: 'Of a SUCCESSFUL tender: PENDING until the winning insurer confirms it.',
})
export class PolicyDocumentationView {
  @Field(() => PolicyDocumentationStatus)
  status!: PolicyDocumentationStatus;

  @Field(() => String, { nullable: true })
  policyNumber!: string | null;

  @Field(() => TimestampScalar, { nullable: true })
  confirmedAt!: Date | null;
}

export enum TenderSortField {
  CREATED_AT = 'createdAt',
  UPDATED_AT = 'updatedAt',
  STATUS = 'status',
  PRODUCT = 'product',
}
registerEnumType(TenderSortField, { name: 'TenderSortField' });

export enum SortDirection {
  ASC = 'asc',
  DESC = 'desc',
}
registerEnumType(SortDirection, { name: 'SortDirection' });

@InputType('TenderSort')
class TenderSort {
  @Field(() => TenderSortField)
  field!: TenderSortField;

  @Field(() => SortDirection, { defaultValue: SortDirection.ASC })
  direction: SortDirection = SortDirection.ASC;
}

@ArgsType()
export class TenderListArgs {
  @Field(() => [TenderStatus], { nullable: true, description: 'Only tenders in one of these statuses.' })
  status?: TenderStatus[];

  @Field(() => ID, { nullable: true })
  lineOfBusinessId?: string;

  @Field(() => TimestampScalar, { nullable: true, description: 'Only tenders updated at or after this instant.' })
  updatedSince?: Date;

  @Field(() => [TenderSort], {
    nullable: true,
    description: 'Sort keys in order of precedence; ties are broken by id. Default: createdAt descending.',
  })
  sort?: TenderSort[];

  @Field(() => Int, { defaultValue: 0 })
  skip: number = 0;

  @Field(() => Int, { defaultValue: LIMITS.defaultPageSize, description: `Page size, 1 to ${LIMITS.pageSize}.` })
  limit: number = LIMITS.defaultPageSize;

  @Field(() => String, {
    nullable: true,
    description:
      'Continue after the page that gave this cursor (its `next`), in the same sort; not with `skip`. Every page then costs what the first does.',
  })
  after?: string;
}

// Simple resolvers here and on every type a tender shows: their fields are plain properties, which graphql-jit
// reads directly; type-graphql's wrapper around each field was most of the cost per tender (docs/benchmark.md).
@ObjectType('Tender', { simpleResolvers: true, description: 'A tender as the viewer may see it (spec 2.1).' })
export class TenderView {
  @Field(() => ID)
  id!: string;

  @Field(() => TenderStatus)
  status!: TenderStatus;

  @Field(() => String)
  product!: string;

  @Field(() => LineOfBusiness)
  lineOfBusiness!: LineOfBusiness;

  @Field(() => TimestampScalar)
  createdAt!: Date;

  @Field(() => TimestampScalar)
  updatedAt!: Date;

  @Field(() => JSONObjectScalar, {
    description: 'status_changed_to_<status> → ISO 8601 timestamp, one key per status the tender has entered.',
  })
  changesMetadata!: Record<string, string>;

  @Field(() => Boolean, { description: 'True when the fields below are withheld from this viewer for data privacy.' })
  redacted!: boolean;

  @Field(() => Float, { nullable: true })
  taxRate!: number | null;

  @Field(() => Customer, { nullable: true })
  customer!: Customer | null;

  @Field(() => BrokerCompany, { nullable: true })
  brokerCompany!: BrokerCompany | null;

  @Field(() => Person, { nullable: true })
  personInCharge!: Person | null;

  @Field(() => PolicyDocumentationView, { nullable: true, description: 'Only for SUCCESSFUL tenders.' })
  policyDocumentation!: PolicyDocumentationView | null;
}

@ObjectType('TenderPage', { simpleResolvers: true })
export class TenderPage {
  @Field(() => Int, { description: 'Total number of matching tenders, not the page size.' })
  count!: number;

  @Field(() => Int)
  skip!: number;

  @Field(() => Int)
  limit!: number;

  @Field(() => [TenderView])
  items!: TenderView[];

  @Field(() => String, { nullable: true, description: 'The `after` cursor of the next page; null on the last page.' })
  next!: string | null;
}
