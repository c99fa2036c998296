import { Arg, Args, Ctx, ID, Query, Resolver } from 'type-graphql';
import { Allowed, type RequestContext } from '../../access';
import { LineOfBusiness } from '../line-of-business.entity';
import { TenderReadService } from './tender-read.service';
import { TenderListArgs, TenderPage, TenderView } from './tender.types';

@Resolver(() => TenderView)
export class TenderResolver {
  @Allowed('tender')
  @Query(() => TenderView, { description: 'One tender the viewer may see; NOT_FOUND otherwise.' })
  async tender(@Arg('id', () => ID) id: string, @Ctx() { em, viewer, rows }: RequestContext): Promise<TenderView> {
    return rows.read(
      () => new TenderReadService(em, viewer).get(id),
      () => 1,
    );
  }

  @Allowed('tenders')
  @Query(() => TenderPage, { description: 'The tenders the viewer may see, filtered, sorted and paged like the REST lists.' })
  async tenders(@Args(() => TenderListArgs) args: TenderListArgs, @Ctx() { em, viewer, rows }: RequestContext): Promise<TenderPage> {
    return rows.read(
      () => new TenderReadService(em, viewer).list(args),
      (page) => page.items.length,
    );
  }

  @Allowed('linesOfBusiness')
  @Query(() => [LineOfBusiness])
  async linesOfBusiness(@Ctx() { em, rows }: RequestContext): Promise<LineOfBusiness[]> {
    return rows.read(
      () => em.find(LineOfBusiness, {}, { orderBy: { name: 'asc' } }),
      (lines) => lines.length,
    );
  }
}
