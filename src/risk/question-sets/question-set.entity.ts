import { Entity, Index, ManyToOne, OptionalProps, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { newId } from '../../platform/db/ids';
import { LineOfBusiness } from '../../tenders/line-of-business.entity';

/**
 * One published version of a product's question set: a JSON Schema (2020-12) document, immutable once written.
 * The document is kept as the text that was published (not as a JSON column, which PostgreSQL would reorder), so
 * every read answers the same bytes and the same ETag.
 */
@Entity({ tableName: 'question_set' })
@Unique({ name: 'question_set_product_version_unique', properties: ['product', 'version'] })
@Index({ name: 'question_set_line_of_business_idx', properties: ['lineOfBusiness'] })
export class QuestionSet {
  [OptionalProps]?: 'id' | 'publishedAt' | 'retiredAt';

  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @Property({ type: 'string', length: 200 })
  product!: string;

  @ManyToOne({ entity: () => LineOfBusiness, index: false })
  lineOfBusiness!: LineOfBusiness;

  /** 1 for a product's first set, each publication the one before plus one. */
  @Property({ type: 'integer' })
  version!: number;

  /** The schema as compact JSON. */
  @Property({ type: 'text' })
  schemaJson!: string;

  /** SHA-256 of `schemaJson` (hex): the reads' ETag. */
  @Property({ type: 'string', length: 64 })
  digest!: string;

  @Property({ type: 'string', length: 200 })
  publishedBy!: string;

  @Property({ type: Date, length: 3 })
  publishedAt: Date = new Date();

  /** Once retired, no tender starts on this version; tenders already on it keep it. */
  @Property({ type: Date, length: 3, nullable: true })
  retiredAt?: Date | null;
}
