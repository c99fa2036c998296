import { Arg, Args, Ctx, ID, Query, Resolver } from 'type-graphql';
import { Allowed, recordRead, type RequestContext } from '../../access';
import { LineOfBusiness } from '../line-of-business.entity';
import { TenderReadService } from './tender-read.service';
import { TenderListArgs, TenderPage, TenderView } from './tender.types';

@Resolver(() => TenderView)
export class TenderResolver {
  @Allowed('tender')
  @Query(() => TenderView, { description: 'One tender the viewer may see; NOT_FOUND otherwise.' })
  async tender(@Arg('id', () => ID) id: string, @Ctx() context: RequestContext): Promise<TenderView> {
    const { em, viewer, rows } = context;
    const tender = await rows.read(
      () => new TenderReadService(em, viewer).get(id),
      () => 1,
    );
    // A redacted tender carries no personal data: its read is no disclosure (docs/privacy.md).
    if (!tender.redacted) recordRead(context, tender.id, 'tender');
    return tender;
  }

  @Allowed('tenders')
  @Query(() => TenderPage, { description: 'The tenders the viewer may see, filtered, sorted and paged like the REST lists.' })
  async tenders(@Args(() => TenderListArgs) args: TenderListArgs, @Ctx() context: RequestContext): Promise<TenderPage> {
    const { em, viewer, rows } = context;
    const page = await rows.read(
      () => new TenderReadService(em, viewer).list(args),
      (found) => found.items.length,
    );
    for (const tender of page.items) if (!tender.redacted) recordRead(context, tender.id, 'tenders');
    return page;
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
