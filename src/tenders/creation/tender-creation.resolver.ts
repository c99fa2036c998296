import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { Allowed, type RequestContext } from '../../access';
import { TenderCreationService } from './tender-creation.service';
import { CreateTenderInput } from './tender-creation.types';
import { presentTenderEntity } from '../read/tender-access';
import { TenderView } from '../read/tender.types';

@Resolver(() => TenderView)
export class TenderCreationResolver {
  @Allowed('createTender')
  @Mutation(() => TenderView, { description: "Creates a tender in QUOTES_AVAILABLE (the user interface's path)." })
  async createTender(@Arg('input', () => CreateTenderInput) input: CreateTenderInput, @Ctx() context: RequestContext): Promise<TenderView> {
    return presentTenderEntity(await new TenderCreationService(context.em, context.viewer).create(input), context, 'createTender');
  }
}
