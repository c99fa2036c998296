import { Arg, Ctx, Field, FieldResolver, InputType, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Allowed, sees, type RequestContext } from '../access';
import { Insurer } from './insurer.entity';
import { InsurerService } from './insurer.service';

@InputType()
export class CreateInsurerInput {
  @Field(() => String)
  name!: string;

  @Field(() => String, { description: 'Base URL of the insurer system (POST /quotes, GET /quotes/{id}).' })
  quoteApiUrl!: string;

  @Field(() => String, { nullable: true, description: 'Bearer credential the gateway presents to the insurer system.' })
  outboundCredential?: string;
}

@Resolver(() => Insurer)
export class InsurerResolver {
  @Allowed('insurers')
  @Query(() => [Insurer], { description: 'All insurers; an insurer token sees only its own.' })
  async insurers(@Ctx() { em, viewer, rows }: RequestContext): Promise<Insurer[]> {
    return rows.read(
      () => new InsurerService(em).list(viewer),
      (insurers) => insurers.length,
    );
  }

  @Allowed('createInsurer')
  @Mutation(() => Insurer)
  createInsurer(
    @Arg('input', () => CreateInsurerInput) input: CreateInsurerInput,
    @Ctx() { em, insurerUrls }: RequestContext,
  ): Promise<Insurer> {
    return new InsurerService(em, insurerUrls).create(input);
  }

  /** Integration details are for operators only. */
  @FieldResolver(() => String, { nullable: true, description: 'Visible to internal and analyst tokens only.' })
  quoteApiUrl(@Root() insurer: Insurer, @Ctx() { viewer }: RequestContext): string | null {
    return sees.integrationDetails(viewer) ? (insurer.quoteApiUrl ?? null) : null;
  }
}
