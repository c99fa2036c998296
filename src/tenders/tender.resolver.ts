import { Arg, Args, Ctx, ID, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { LineOfBusiness } from './line-of-business.entity';
import { TenderService } from './tender.service';
import { TenderListArgs, TenderPage, TenderView } from './tender.types';

@Resolver(() => TenderView)
export class TenderResolver {
  @Query(() => TenderView, { description: 'One tender the viewer may see; NOT_FOUND otherwise.' })
  tender(@Arg('id', () => ID) id: string, @Ctx() { em, viewer }: RequestContext): Promise<TenderView> {
    return new TenderService(em, viewer).get(id);
  }

  @Query(() => TenderPage, { description: 'The tenders the viewer may see, filtered, sorted and paged like the REST lists.' })
  tenders(@Args(() => TenderListArgs) args: TenderListArgs, @Ctx() { em, viewer }: RequestContext): Promise<TenderPage> {
    return new TenderService(em, viewer).list(args);
  }

  @Query(() => [LineOfBusiness])
  linesOfBusiness(@Ctx() { em }: RequestContext): Promise<LineOfBusiness[]> {
    return em.find(LineOfBusiness, {}, { orderBy: { name: 'asc' } });
  }
}
