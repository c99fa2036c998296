import { Arg, Args, Ctx, ID, Query, Resolver } from 'type-graphql';
import { Allowed, type RequestContext } from '../../access';
import { filteredAccessLog, tenderAccessLog } from './access-log.service';
import { AccessLogFilter, AccessLogPage, AccessLogPaging } from './access-log.types';

@Resolver()
export class AccessLogResolver {
  @Allowed('tenderAccessLog')
  @Query(() => AccessLogPage, {
    description: "Who read the tender's personal data, newest first: its broker and internal users; NOT_FOUND for anyone else.",
  })
  async tenderAccessLog(
    @Arg('tenderId', () => ID) tenderId: string,
    @Args(() => AccessLogPaging) paging: AccessLogPaging,
    @Ctx() { em, viewer, rows }: RequestContext,
  ): Promise<AccessLogPage> {
    return rows.read(
      () => tenderAccessLog(em, viewer, tenderId, paging),
      (page) => page.items.length,
    );
  }

  @Allowed('accessLog')
  @Query(() => AccessLogPage, { description: "Every client's reads of personal data, newest first, filtered (internal users)." })
  async accessLog(
    @Arg('filter', () => AccessLogFilter, { defaultValue: {} }) filter: AccessLogFilter,
    @Args(() => AccessLogPaging) paging: AccessLogPaging,
    @Ctx() { em, rows }: RequestContext,
  ): Promise<AccessLogPage> {
    return rows.read(
      () => filteredAccessLog(em, filter, paging),
      (page) => page.items.length,
    );
  }
}
