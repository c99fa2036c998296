import { ArgsType, Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { TimestampScalar } from '../../platform/validation/timestamp';
import { Role } from '../../access';
import { TenderStatus } from '../tender-status';
import { LIMITS } from '../../platform/validation/rules';
import { TENDER_FIELD_LIST, type ShownTender } from '../shape/tender-fields';

const WITHHELD = TENDER_FIELD_LIST.filter((field) => field.withheld).map((field) => field.name);

@ObjectType('AdviceExportRecord', {
  simpleResolvers: true,
  description: 'An advice export in the history: which ADVICE document the broker made, and the SHA-256 of its bytes.',
})
export class AdviceExportRecordView {
  @Field(() => String, { description: 'PDF, CSV or JSON.' })
  format!: string;

  @Field(() => ID)
  documentId!: string;

  @Field(() => String, { description: 'Hex, lower case: of the bytes stored, and served by the document content route.' })
  sha256!: string;
}

@ObjectType('TenderHistoryEntry', {
  simpleResolvers: true,
  description: 'One status change (who, when, from, to, why), or an advice export (`adviceExport`; the status unchanged).',
})
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

  @Field(() => String, {
    nullable: true,
    description:
      'A step of the binding (docs/lifecycle.md): COVER_ACCEPTED, COVER_DECLINED, SUBJECTIVITY_RESPONDED, SUBJECTIVITY_ACCEPTED, ' +
      'SUBJECTIVITY_REJECTED or SUBJECTIVITY_WAIVED; or of the renewal (docs/renewals.md): RENEWAL_TERMS_SET, RENEWAL_DECIDED, ' +
      'NON_RENEWAL_NOTIFIED, RENEWED; null for a plain status change.',
  })
  step!: string | null;

  @Field(() => ID, { nullable: true, description: 'The subjectivity a SUBJECTIVITY_* step is about.' })
  subjectivityId!: string | null;

  @Field(() => AdviceExportRecordView, {
    nullable: true,
    description: "Set on an advice export (exportProposal); seen by the tender's broker and internal users only.",
  })
  adviceExport!: AdviceExportRecordView | null;
}

@InputType('PolicyPeriodInput', { description: 'A policy period: two days (YYYY-MM-DD), both included.' })
export class PolicyPeriodInput {
  @Field(() => String, { nullable: true, description: 'Default: the inception date, or today in Europe/Berlin.' })
  start?: string | null;

  @Field(() => String, { nullable: true, description: 'Default: one year less a day after the start.' })
  end?: string | null;
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
// The class is the GraphQL type; its other fields are registered from the tender's declaration below, and their
// types come with them through the interface of the same name.
@ObjectType('Tender', { simpleResolvers: true, description: 'A tender as the viewer may see it (spec 2.1).' })
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class TenderView {
  @Field(() => Boolean, {
    description: `True when ${WITHHELD.join(', ')} are withheld (null) from this viewer for data privacy.`,
  })
  redacted!: boolean;
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface TenderView extends ShownTender {}

for (const field of TENDER_FIELD_LIST) {
  const type = field.source === 'column' ? field.kind.graphql : field.shape.graphql;
  Field(type, { nullable: Boolean(field.optional || field.withheld), description: field.description })(TenderView.prototype, field.name);
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
