import { Arg, Ctx, Query, Resolver } from 'type-graphql';
import { TimestampScalar } from '../platform/validation/timestamp';
import { Allowed, type RequestContext } from '../access';
import { TenderStatistics, tenderStatistics } from './tender-statistics';

@Resolver()
export class TenderStatisticsResolver {
  @Allowed('tenderStatistics')
  @Query(() => TenderStatistics, {
    description: 'Counts, quote response rates and times, premium distributions; tenders created in [from, to).',
  })
  tenderStatistics(
    @Arg('from', () => TimestampScalar, { nullable: true }) from: Date | null,
    @Arg('to', () => TimestampScalar, { nullable: true }) to: Date | null,
    @Ctx() { em, viewer }: RequestContext,
  ): Promise<TenderStatistics> {
    return tenderStatistics(em, viewer, from, to);
  }
}
