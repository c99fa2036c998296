import { Collection, Entity, ManyToOne, OneToMany, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../platform/db/ids';
import { QuoteRequest } from './quote-request.entity';
import type { SubjectivityStage } from './quote-request-status';
import { TrackedSubjectivity } from './subjectivities/subjectivity.entity';

/** A condition of a quote option: met before cover is bound, or after. */
export interface Subjectivity {
  text: string;
  stage: SubjectivityStage;
  /** When it must be met (an insurer's optional `due_at`), ISO 8601; absent: no date. */
  dueAt?: string;
}

/** One option of an insurer's quote (spec 2.5), in the insurer's order. */
@Entity({ tableName: 'quote_option' })
export class QuoteOption {
  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @ManyToOne({ entity: () => QuoteRequest })
  quoteRequest!: QuoteRequest;

  @Property({ type: 'integer' })
  position!: number;

  @Property({ type: 'double', columnType: 'double precision', runtimeType: 'number' })
  insuranceSum!: number;

  @Property({ type: 'double', columnType: 'double precision', runtimeType: 'number' })
  deductible!: number;

  @Property({ type: 'double', columnType: 'double precision', runtimeType: 'number' })
  premium!: number;

  /** Conditions of this option (spec 2.5 `subjectivities`, optional); null when the insurer gave none. */
  @Property({ type: 'json', nullable: true })
  subjectivities?: Subjectivity[] | null;

  /** The subjectivities as tracked things (subjectivities/): status, due date, responses and decisions. */
  @OneToMany({ entity: () => TrackedSubjectivity, mappedBy: 'quoteOption', orderBy: { position: 'asc' } })
  tracked = new Collection<TrackedSubjectivity>(this);
}
