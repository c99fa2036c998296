import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { newId } from '../platform/db/ids';
import { Insurer } from '../insurers/insurer.entity';
import { Tender } from './tender.entity';

/** "This insurer was invited to quote on this tender": what makes a tender visible to an insurer. */
@Entity({ tableName: 'tender_invitation' })
@Unique({ name: 'tender_invitation_insurer_tender_unique', properties: ['insurer', 'tender'] })
export class TenderInvitation {
  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @ManyToOne({ entity: () => Tender })
  tender!: Tender;

  @ManyToOne({ entity: () => Insurer, index: false })
  insurer!: Insurer;

  @Property({ type: Date, length: 3 })
  createdAt: Date = new Date();
}
