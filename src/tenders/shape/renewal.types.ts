import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { TimestampScalar } from '../../platform/validation/timestamp';

/** How a contract renews (docs/renewals.md). */
export enum RenewalType {
  /** For another year unless notice is given by the notice deadline (§ 11 VVG). */
  TACIT = 'TACIT',
  /** It ends with its period: the notice deadline is when to have the next cover arranged. */
  EXPIRING = 'EXPIRING',
}
registerEnumType(RenewalType, { name: 'RenewalType' });

@ObjectType('RenewalTerms', {
  simpleResolvers: true,
  description: 'Of a SUCCESSFUL tender once set (setRenewalTerms): how it renews and the notice deadline of its current period.',
})
export class RenewalTermsView {
  @Field(() => RenewalType)
  type!: RenewalType;

  @Field(() => Int, { description: '1 to 3 calendar months.' })
  noticePeriodMonths!: number;

  @Field(() => TimestampScalar, {
    description:
      "The end of the last day notice may be given on (Europe/Berlin): the notice period counted back from the day after the period's last day. A tacit renewal moves it on a year.",
  })
  noticeDeadline!: Date;
}
