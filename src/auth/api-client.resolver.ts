import { Arg, Authorized, Ctx, Field, GraphQLISODateTime, ID, InputType, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { Insurer } from '../insurers/insurer.entity';
import { BrokerCompany } from '../parties/broker-company.entity';
import { ApiClientService } from './api-client.service';
import { Role } from './role';

@InputType()
export class CreateApiClientInput {
  @Field(() => Role)
  role!: Role;

  @Field(() => ID, { nullable: true, description: 'Required for role insurer.' })
  insurerId?: string;

  @Field(() => ID, { nullable: true, description: 'Required for role broker.' })
  brokerCompanyId?: string;

  @Field(() => String, { nullable: true })
  description?: string;
}

@ObjectType()
export class CreatedApiClient {
  @Field(() => String)
  appId!: string;

  @Field(() => String, { description: 'Shown only in this response; only a salted hash is stored.' })
  secret!: string;

  @Field(() => Role)
  role!: Role;

  @Field(() => Insurer, { nullable: true })
  insurer?: Insurer;

  @Field(() => BrokerCompany, { nullable: true })
  brokerCompany?: BrokerCompany;
}

@ObjectType()
export class Me {
  @Field(() => String)
  appId!: string;

  @Field(() => Role)
  role!: Role;

  @Field(() => Insurer, { nullable: true })
  insurer?: Insurer | null;

  @Field(() => BrokerCompany, { nullable: true })
  brokerCompany?: BrokerCompany | null;

  @Field(() => GraphQLISODateTime, { description: 'When the access token of this request expires.' })
  tokenExpiresAt!: Date;
}

@Resolver()
export class ApiClientResolver {
  @Query(() => Me, { description: 'The API client behind the access token.' })
  async me(@Ctx() { em, viewer }: RequestContext): Promise<Me> {
    return {
      appId: viewer.appId,
      role: viewer.role,
      insurer: viewer.insurerId ? await em.findOne(Insurer, { id: viewer.insurerId }) : null,
      brokerCompany: viewer.brokerCompanyId ? await em.findOne(BrokerCompany, { id: viewer.brokerCompanyId }) : null,
      tokenExpiresAt: viewer.expiresAt,
    };
  }

  @Authorized(Role.INTERNAL)
  @Mutation(() => CreatedApiClient, { description: 'Creates API credentials; the secret is returned once.' })
  async createApiClient(
    @Arg('input', () => CreateApiClientInput) input: CreateApiClientInput,
    @Ctx() { em }: RequestContext,
  ): Promise<CreatedApiClient> {
    const { client, secret } = await new ApiClientService(em).create(input);
    return { appId: client.appId, secret, role: client.role, insurer: client.insurer, brokerCompany: client.brokerCompany };
  }
}
