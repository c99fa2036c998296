import { Collection, Entity, Enum, Index, ManyToOne, OneToMany, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { Role } from '../../access';
import { newId } from '../../platform/db/ids';
import { LIMITS } from '../../platform/validation/rules';
import { Insurer } from '../../insurers/insurer.entity';
import { Tender } from '../../tenders/tender.entity';
import { QuoteOption } from '../quote-option.entity';
import { QuoteRequest } from '../quote-request.entity';
import { SubjectivityStage, SubjectivityStatus, SubjectivityStepKind } from '../quote-request-status';

/**
 * A subjectivity of a quote option as a thing of its own (docs/lifecycle.md, "Binding"): the broker responds, the
 * quoting insurer accepts, rejects (asking for another response) or waives it. The option's `subjectivities` JSON
 * keeps what the insurer quoted; this row tracks where the condition stands.
 */
@Entity({ tableName: 'subjectivity' })
@Index({ name: 'subjectivity_tender_idx', properties: ['tender'] })
@Index({ name: 'subjectivity_option_idx', properties: ['quoteOption'] })
@Index({ name: 'subjectivity_due_idx', properties: ['dueAt'] })
export class TrackedSubjectivity {
  [OptionalProps]?: 'id' | 'status' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @ManyToOne({ entity: () => Tender, index: false })
  tender!: Tender;

  @ManyToOne({ entity: () => QuoteRequest, index: false })
  quoteRequest!: QuoteRequest;

  /** The quoting insurer: the one who decides. */
  @ManyToOne({ entity: () => Insurer, index: false })
  insurer!: Insurer;

  @ManyToOne({ entity: () => QuoteOption, index: false })
  quoteOption!: QuoteOption;

  /** Its place among the option's subjectivities, as the insurer listed them. */
  @Property({ type: 'integer' })
  position!: number;

  @Enum({ items: () => SubjectivityStage, type: 'string', length: 16 })
  stage!: SubjectivityStage;

  @Property({ type: 'string', length: LIMITS.subjectivityText * 6 })
  text!: string;

  /** When it must be met (an insurer's optional `due_at`); null: no date. */
  @Property({ type: Date, length: 3, nullable: true })
  dueAt?: Date | null;

  @Enum({ items: () => SubjectivityStatus, type: 'string', length: 16 })
  status: SubjectivityStatus = SubjectivityStatus.OPEN;

  /** When SUBJECTIVITY_OVERDUE was raised for it: once. */
  @Property({ type: Date, length: 3, nullable: true })
  overdueAt?: Date | null;

  @Property({ type: Date, length: 3 })
  createdAt: Date = new Date();

  @Property({ type: Date, length: 3 })
  updatedAt: Date = new Date();

  @OneToMany({ entity: () => SubjectivityStep, mappedBy: 'subjectivity', orderBy: { at: 'asc', id: 'asc' } })
  steps = new Collection<SubjectivityStep>(this);
}

/** One response or decision on a subjectivity: who, when, what. Appended, never changed. */
@Entity({ tableName: 'subjectivity_step' })
@Index({ name: 'subjectivity_step_subjectivity_at_idx', properties: ['subjectivity', 'at'] })
export class SubjectivityStep {
  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @ManyToOne({ entity: () => TrackedSubjectivity, index: false })
  subjectivity!: TrackedSubjectivity;

  @Property({ type: Date, length: 3 })
  at!: Date;

  /** The app_id of the API client that took the step. */
  @Property({ type: 'string', length: 64 })
  actor!: string;

  @Enum({ items: () => Role, type: 'string', length: 16 })
  actorRole!: Role;

  @Enum({ items: () => SubjectivityStepKind, type: 'string', length: 16 })
  kind!: SubjectivityStepKind;

  /** The broker's response, or the insurer's reason for its decision. */
  @Property({ type: 'string', length: LIMITS.subjectivityResponse, nullable: true })
  text?: string | null;

  /** Documents of the tender the response names (e.g. the signed application). */
  @Property({ type: 'json', nullable: true })
  documentIds?: string[] | null;
}
