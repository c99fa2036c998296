import { Arg, Ctx, Field, FieldResolver, ID, InputType, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { Allowed, sees, type RequestContext } from '../access';
import { Insurer, InsurerIntegration, type InsurerContact } from './insurer.entity';
import { InsurerService } from './insurer.service';

@InputType()
class CreateInsurerInput {
  @Field(() => String)
  name!: string;

  @Field(() => InsurerIntegration, { nullable: true, description: 'API (the default) or MANUAL.' })
  integration?: InsurerIntegration;

  @Field(() => String, {
    nullable: true,
    description: 'Base URL of the insurer system (POST /quotes, GET /quotes/{id}): required for API, none for MANUAL.',
  })
  quoteApiUrl?: string;

  @Field(() => String, { nullable: true, description: 'Bearer credential the gateway presents to the insurer system.' })
  outboundCredential?: string;
}

@InputType()
export class ChangeInsurerIntegrationInput {
  @Field(() => ID)
  insurerId!: string;

  @Field(() => InsurerIntegration)
  integration!: InsurerIntegration;

  @Field(() => String, { nullable: true, description: 'For API: the quote API URL (the stored one unless given). None for MANUAL.' })
  quoteApiUrl?: string;

  @Field(() => String, { nullable: true, description: 'For API: a new bearer credential for the insurer system.' })
  outboundCredential?: string;
}

@InputType('InsurerContactInput')
class InsurerContactInput {
  @Field(() => String)
  email!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { description: 'de or en: the language of the mails.' })
  language!: 'de' | 'en';
}

@ObjectType('InsurerContact', { description: 'A person at the insurer who is mailed its invitations and orders.' })
class InsurerContactView {
  @Field(() => String)
  email!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String)
  language!: string;
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

  @Allowed('changeInsurerIntegration')
  @Mutation(() => Insurer, {
    description: 'API or MANUAL: how the insurer is asked for quotes from now on (requests under way finish as they started).',
  })
  changeInsurerIntegration(
    @Arg('input', () => ChangeInsurerIntegrationInput) input: ChangeInsurerIntegrationInput,
    @Ctx() { em, insurerUrls }: RequestContext,
  ): Promise<Insurer> {
    return new InsurerService(em, insurerUrls).changeIntegration(input);
  }

  @Allowed('setInsurerContacts')
  @Mutation(() => Insurer, { description: "Whom the insurer is mailed at (at most 10); an insurer's client sets its own." })
  setInsurerContacts(
    @Arg('insurerId', () => ID) insurerId: string,
    @Arg('contacts', () => [InsurerContactInput]) contacts: InsurerContactInput[],
    @Ctx() { em, viewer }: RequestContext,
  ): Promise<Insurer> {
    return new InsurerService(em).setContacts(viewer, insurerId, contacts);
  }

  /** Contacts are personal data: internal users and the insurer's own client. */
  @FieldResolver(() => [InsurerContactView], { description: 'Visible to internal users and the insurer itself; empty for others.' })
  contacts(@Root() insurer: Insurer, @Ctx() { viewer }: RequestContext): InsurerContact[] {
    return sees.insurerContacts(viewer, insurer.id) ? insurer.contacts : [];
  }

  /** Integration details are for operators only. */
  @FieldResolver(() => String, { nullable: true, description: 'Visible to internal and analyst tokens only.' })
  quoteApiUrl(@Root() insurer: Insurer, @Ctx() { viewer }: RequestContext): string | null {
    return sees.integrationDetails(viewer) ? (insurer.quoteApiUrl ?? null) : null;
  }
}
