import { Collection, Entity, Enum, Index, ManyToOne, OneToMany, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../platform/db/ids';
import { Insurer } from '../insurers/insurer.entity';
import { BrokerCompany } from '../parties/broker-company.entity';
import { Customer } from '../parties/customer.entity';
import { Person } from '../parties/person.entity';
import { QuoteOption } from '../quotes/quote-option.entity';
import { LineOfBusiness } from './line-of-business.entity';
import { TenderInvitation } from './tender-invitation.entity';
import { TenderStatus } from './tender-status';
import type { RenewalType } from './shape/renewal.types';
import { LIMITS } from '../platform/validation/rules';

/**
 * Indexes follow the list API: every sort key, and every filter before the default sort. Foreign keys that no
 * list filters on stay unindexed: each index costs every insert.
 */
@Entity({ tableName: 'tender' })
@Index({ name: 'tender_created_at_id_idx', properties: ['createdAt', 'id'] })
@Index({ name: 'tender_updated_at_id_idx', properties: ['updatedAt', 'id'] })
@Index({ name: 'tender_status_created_at_idx', properties: ['status', 'createdAt'] })
@Index({ name: 'tender_product_created_at_idx', properties: ['product', 'createdAt'] })
@Index({ name: 'tender_lob_created_at_idx', properties: ['lineOfBusiness', 'createdAt'] })
// With the id, a broker's page (and its cursor) is found in the index alone, however deep.
@Index({ name: 'tender_broker_created_at_id_idx', properties: ['brokerCompany', 'createdAt', 'id'] })
@Index({ name: 'tender_broker_updated_at_id_idx', properties: ['brokerCompany', 'updatedAt', 'id'] })
// Renewals (docs/renewals.md): what is due before a day, everyone's and a broker company's; the sweep's next work.
@Index({ name: 'tender_notice_deadline_idx', properties: ['noticeDeadline', 'id'] })
@Index({ name: 'tender_broker_notice_deadline_idx', properties: ['brokerCompany', 'noticeDeadline', 'id'] })
@Index({ name: 'tender_renewal_sweep_at_idx', properties: ['renewalSweepAt'] })
export class Tender {
  [OptionalProps]?: 'id' | 'status' | 'changesMetadata' | 'createdAt' | 'updatedAt' | 'version';

  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @Property({ type: 'string', length: LIMITS.name })
  product!: string;

  @Enum({ items: () => TenderStatus, type: 'string', length: 32 })
  status: TenderStatus = TenderStatus.QUOTES_AVAILABLE;

  @Property({ type: 'double', columnType: 'double precision', runtimeType: 'number' })
  taxRate!: number;

  @ManyToOne({ entity: () => LineOfBusiness, index: false })
  lineOfBusiness!: LineOfBusiness;

  @ManyToOne({ entity: () => Customer, index: false })
  customer!: Customer;

  @ManyToOne({ entity: () => BrokerCompany, index: false })
  brokerCompany!: BrokerCompany;

  @ManyToOne({ entity: () => Person, index: false })
  personInCharge!: Person;

  /** The insurer of the ordered option; decides who may finalise, and who sees a SUCCESSFUL tender in full. */
  @ManyToOne({ entity: () => Insurer, nullable: true, index: false })
  awardedInsurer?: Insurer | null;

  /** The option of a received quote the broker ordered cover for (IN_COVERNOTE onwards). */
  @ManyToOne({ entity: () => QuoteOption, nullable: true, index: false })
  orderedOption?: QuoteOption | null;

  /** Risk information captured with the tender; the default for its quote requests. Not read with the tender. */
  @Property({ type: 'json', nullable: true, lazy: true })
  riskInformation?: Record<string, unknown> | null;

  /** Set when the winning insurer confirms the policy documentation of a SUCCESSFUL tender. */
  @Property({ type: 'string', length: LIMITS.policyNumber, nullable: true })
  policyNumber?: string | null;

  @Property({ type: Date, length: 3, nullable: true })
  policyConfirmedAt?: Date | null;

  /** The POLICY document named when the policy documentation was confirmed (documents/), if any. */
  @Property({ type: 'string', length: 36, nullable: true })
  policyDocumentId?: string | null;

  /** When the ordered option was ordered (orderCover): COVER_ORDER_OVERDUE counts working days from here. */
  @Property({ type: Date, length: 3, nullable: true })
  coverOrderedAt?: Date | null;

  /** When the insurer of the ordered option accepted the order (acceptCoverOrder, or finalising it). */
  @Property({ type: Date, length: 3, nullable: true })
  coverAcceptedAt?: Date | null;

  /** The inception date the insurer accepted the order for (YYYY-MM-DD). */
  @Property({ type: 'string', length: 10, nullable: true })
  inceptionDate?: string | null;

  /** When COVER_ORDER_OVERDUE was raised for the current order: once. */
  @Property({ type: Date, length: 3, nullable: true })
  coverOrderOverdueAt?: Date | null;

  /** The policy period recorded when the contract was finalised (YYYY-MM-DD, both days included). */
  @Property({ type: 'string', length: 10, nullable: true })
  policyPeriodStart?: string | null;

  @Property({ type: 'string', length: 10, nullable: true })
  policyPeriodEnd?: string | null;

  /** How the contract renews (docs/renewals.md): TACIT (unless notice is given) or EXPIRING; null until set. */
  @Property({ type: 'string', length: 16, nullable: true })
  renewalType?: RenewalType | null;

  /** The notice period, 1 to 3 calendar months. */
  @Property({ type: 'integer', nullable: true })
  noticePeriodMonths?: number | null;

  /** The last day (YYYY-MM-DD) of the period the notice deadline is for: the policy period, then each year a tacit renewal adds. */
  @Property({ type: 'string', length: 10, nullable: true })
  renewalPeriodEnd?: string | null;

  /** The end of the last day notice may be given on for that period (Europe/Berlin). */
  @Property({ type: Date, length: 3, nullable: true })
  noticeDeadline?: Date | null;

  /** How many of the period's reminders were raised (null: none): 1 RENEWAL_DUE, 2 NOTICE_DEADLINE_APPROACHING, 3 NOTICE_DEADLINE_PASSED. */
  @Property({ type: 'integer', nullable: true })
  renewalReminders?: number | null;

  /** When the renewal sweep next has work for this tender (a reminder, or the next year of a tacit renewal); null: none. */
  @Property({ type: Date, length: 3, nullable: true })
  renewalSweepAt?: Date | null;

  /** The broker's decision for the coming renewal; never shown to an insurer. */
  @Property({ type: 'string', length: 32, nullable: true })
  renewalDecision?: string | null;

  @Property({ type: 'text', nullable: true })
  renewalDecisionReason?: string | null;

  @Property({ type: Date, length: 3, nullable: true })
  renewalDecidedAt?: Date | null;

  /** When notice of non-renewal was recorded (before the deadline), and why. */
  @Property({ type: Date, length: 3, nullable: true })
  nonRenewalNotifiedAt?: Date | null;

  @Property({ type: 'text', nullable: true })
  nonRenewalReason?: string | null;

  /** The tender this one renews (its id), and the one renewing this: linked both ways. */
  @Property({ type: 'string', length: 36, nullable: true })
  renewalOf?: string | null;

  @Property({ type: 'string', length: 36, nullable: true })
  renewedBy?: string | null;

  /** When the personal data of the tender's customer and persons was erased (docs/privacy.md). */
  @Property({ type: Date, length: 3, nullable: true })
  erasedAt?: Date | null;

  /** `status_changed_to_<status>` → ISO 8601 timestamp, for every status the tender has entered. */
  @Property({ type: 'json' })
  changesMetadata: Record<string, string> = {};

  @OneToMany({ entity: () => TenderInvitation, mappedBy: 'tender' })
  invitations = new Collection<TenderInvitation>(this);

  @Property({ type: Date, length: 3 })
  createdAt: Date = new Date();

  @Property({ type: Date, length: 3 })
  updatedAt: Date = new Date();

  @Property({ type: 'integer', version: true })
  version!: number;
}
