import { Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Insurer } from '../../insurers';
import { TimestampScalar } from '../../platform/validation/timestamp';
import { TenderView } from '../../tenders';

/** Where a renewal stands at the time it is read. */
export enum RenewalStatus {
  /** The notice deadline is ahead and no notice was given. */
  OPEN = 'OPEN',
  /** Notice of non-renewal was given (notifyNonRenewal). */
  NOTICE_GIVEN = 'NOTICE_GIVEN',
  /** The deadline passed without notice: a tacit renewal runs another year (its next deadline follows at the period's end). */
  DEADLINE_PASSED = 'DEADLINE_PASSED',
}
registerEnumType(RenewalStatus, { name: 'RenewalStatus' });

/** The broker's decision for the coming renewal: never shown to an insurer. */
export enum RenewalDecision {
  RENEW_WITH_INCUMBENT = 'RENEW_WITH_INCUMBENT',
  MOVE = 'MOVE',
  LAPSE = 'LAPSE',
}
registerEnumType(RenewalDecision, { name: 'RenewalDecision' });

@ObjectType('Renewal', {
  description: "A SUCCESSFUL tender's coming renewal, for its broker and internal users only (docs/renewals.md).",
})
export class RenewalView {
  @Field(() => TenderView)
  tender!: TenderView;

  @Field(() => RenewalStatus)
  status!: RenewalStatus;

  @Field(() => TimestampScalar, { description: 'The end of the last day notice may be given on (Europe/Berlin).' })
  noticeDeadline!: Date;

  @Field(() => Int)
  noticePeriodMonths!: number;

  @Field(() => String, { description: 'The last day (YYYY-MM-DD) of the period the deadline is for.' })
  periodEnd!: string;

  @Field(() => Insurer, { nullable: true, description: 'The insurer of the expiring contract.' })
  incumbentInsurer!: Insurer | null;

  @Field(() => Float, { nullable: true, description: 'The expiring contract’s premium, without tax: never shown to an insurer.' })
  expiringPremium!: number | null;

  @Field(() => RenewalDecision, { nullable: true })
  decision!: RenewalDecision | null;

  @Field(() => String, { nullable: true })
  decisionReason!: string | null;

  @Field(() => TimestampScalar, { nullable: true })
  decidedAt!: Date | null;

  @Field(() => TimestampScalar, { nullable: true, description: 'When notice of non-renewal was recorded.' })
  nonRenewalNotifiedAt!: Date | null;

  @Field(() => String, { nullable: true })
  nonRenewalReason!: string | null;

  @Field(() => ID, { nullable: true, description: 'The renewal tender (renewTender), once made.' })
  renewedBy!: string | null;
}

@ObjectType('PremiumChange', { simpleResolvers: true })
export class PremiumChangeView {
  @Field(() => ID)
  quoteOptionId!: string;

  @Field(() => Float, { description: 'The option’s premium less the expiring premium, without tax.' })
  change!: number;

  @Field(() => Float, { nullable: true, description: 'The change as a share of the expiring premium (0.05: 5 % more).' })
  changeRatio!: number | null;
}

@ObjectType('RenewalComparison', {
  description: "A renewal tender's options against the expiring contract: for its broker and internal users only, never an insurer.",
})
export class RenewalComparisonView {
  @Field(() => ID)
  renewalOf!: string;

  @Field(() => Insurer, { nullable: true })
  incumbentInsurer!: Insurer | null;

  @Field(() => Float, { nullable: true })
  expiringPremium!: number | null;

  @Field(() => [PremiumChangeView], { description: 'Each quoted option (in the expiring premium’s currency) with its change.' })
  premiumChanges!: PremiumChangeView[];
}
