import { Entity, Enum, OneToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../platform/db/ids';
import { Tender } from '../../tenders/tender.entity';
import { RiskAssessmentStatus, type AnswerSourceRecord } from './risk-assessment-status';

/**
 * A tender's risk assessment: the answers to its product's question set, with their sources. `version` counts the
 * saves: a save names the version it read (`expectedVersion`) and a stale one is refused, so no save is lost.
 */
@Entity({ tableName: 'risk_assessment' })
export class RiskAssessment {
  [OptionalProps]?: 'id' | 'status' | 'version' | 'createdAt' | 'updatedAt' | 'frozenAt' | 'submittedAt' | 'erasedAt';

  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @OneToOne({ entity: () => Tender, owner: true, unique: 'risk_assessment_tender_unique' })
  tender!: Tender;

  @Property({ type: 'string', length: 200 })
  product!: string;

  /** The question set version the answers follow: the latest until the first quote request, then frozen. */
  @Property({ type: 'integer' })
  questionSetVersion!: number;

  @Property({ type: 'json' })
  answers!: Record<string, unknown>;

  @Property({ type: 'json' })
  sources!: AnswerSourceRecord[];

  @Enum({ items: () => RiskAssessmentStatus, type: 'string', length: 16 })
  status: RiskAssessmentStatus = RiskAssessmentStatus.DRAFT;

  @Property({ type: 'integer' })
  version: number = 1;

  /** When the first quote request was made from it: from then on the question set version stays. */
  @Property({ type: Date, length: 3, nullable: true })
  frozenAt?: Date | null;

  @Property({ type: Date, length: 3, nullable: true })
  submittedAt?: Date | null;

  /** When the customer's personal answers were erased. */
  @Property({ type: Date, length: 3, nullable: true })
  erasedAt?: Date | null;

  @Property({ type: Date, length: 3 })
  createdAt: Date = new Date();

  @Property({ type: Date, length: 3 })
  updatedAt: Date = new Date();
}
