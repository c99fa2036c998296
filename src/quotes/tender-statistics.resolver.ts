import { Arg, Ctx, GraphQLISODateTime, Query, Resolver } from 'type-graphql';
import { Allowed } from '../access/access-policy';
import type { RequestContext } from '../access/request-context';
import { TenderStatistics, tenderStatistics } from './tender-statistics';

@Resolver()
export class TenderStatisticsResolver {
  @Allowed('tenderStatistics')
  @Query(() => TenderStatistics, { description: 'Counts, quote response rates and times, premium distributions; tenders created in [from, to).' })
  tenderStatistics(
    @Arg('from', () => GraphQLISODateTime, { nullable: true }) from: Date | null,
    @Arg('to', () => GraphQLISODateTime, { nullable: true }) to: Date | null,
    @Ctx() { em, viewer }: RequestContext,
  ): Promise<TenderStatistics> {
    return tenderStatistics(em, viewer, from, to);
  }
}
