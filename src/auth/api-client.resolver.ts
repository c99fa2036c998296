import { Arg, Ctx, Field, ID, InputType, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { TimestampScalar } from '../platform/validation/timestamp';
import { Allowed, type RequestContext, Role } from '../access';
import type { AuthContext } from './auth-context';
import { Insurer } from '../insurers';
import { BrokerCompany } from '../parties';
import type { ApiClient } from './api-client.entity';
import { ApiClientService } from './api-client.service';

@InputType()
class CreateApiClientInput {
  @Field(() => Role)
  role!: Role;

  @Field(() => ID, { nullable: true, description: 'Required for role insurer.' })
  insurerId?: string;

  @Field(() => ID, { nullable: true, description: 'Required for role broker.' })
  brokerCompanyId?: string;

  @Field(() => String, { nullable: true })
  description?: string;
}

/** Who an API client is: the fields every view of one shares (not in the schema itself: no field returns it). */
@ObjectType()
abstract class ApiClientIdentity {
  @Field(() => String)
  appId!: string;

  @Field(() => Role)
  role!: Role;

  @Field(() => Insurer, { nullable: true })
  insurer?: Insurer | null;

  @Field(() => BrokerCompany, { nullable: true })
  brokerCompany?: BrokerCompany | null;
}

@ObjectType()
class CreatedApiClient extends ApiClientIdentity {
  @Field(() => String, { description: 'Shown only in this response; only a salted hash is stored.' })
  secret!: string;
}

@ObjectType({ description: 'An API client as operators see it; never its secret.' })
class ApiClientView extends ApiClientIdentity {
  @Field(() => String)
  description!: string;

  @Field(() => TimestampScalar)
  createdAt!: Date;

  @Field(() => TimestampScalar, {
    nullable: true,
    description: 'Set while the client is disabled: it gets no tokens and its tokens are refused.',
  })
  disabledAt!: Date | null;
}

const identity = (client: ApiClient): ApiClientIdentity => ({
  appId: client.appId,
  role: client.role,
  insurer: client.insurer ?? null,
  brokerCompany: client.brokerCompany ?? null,
});

const clientView = (client: ApiClient): ApiClientView => ({
  ...identity(client),
  description: client.description,
  createdAt: client.createdAt,
  disabledAt: client.disabledAt ?? null,
});

@ObjectType()
class Me extends ApiClientIdentity {
  @Field(() => TimestampScalar, { description: 'When the access token of this request expires.' })
  tokenExpiresAt!: Date;
}

@Resolver()
export class ApiClientResolver {
  @Allowed('me')
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

  @Allowed('createApiClient')
  @Mutation(() => CreatedApiClient, { description: 'Creates API credentials; the secret is returned once.' })
  async createApiClient(
    @Arg('input', () => CreateApiClientInput) input: CreateApiClientInput,
    @Ctx() { em, tokenStanding }: AuthContext,
  ): Promise<CreatedApiClient> {
    const { client, secret } = await new ApiClientService(em, tokenStanding).create(input);
    return { ...identity(client), secret };
  }

  @Allowed('disableApiClient')
  @Mutation(() => ApiClientView, {
    description:
      "Refuses the client's tokens at once on this instance, on the others within the token standing's bound (docs/architecture.md), and issues it none until enabled.",
  })
  async disableApiClient(@Arg('appId', () => String) appId: string, @Ctx() { em, tokenStanding }: AuthContext): Promise<ApiClientView> {
    return clientView(await new ApiClientService(em, tokenStanding).disable(appId));
  }

  @Allowed('enableApiClient')
  @Mutation(() => ApiClientView, { description: 'Issues the client tokens again; tokens from before it was disabled stay refused.' })
  async enableApiClient(@Arg('appId', () => String) appId: string, @Ctx() { em, tokenStanding }: AuthContext): Promise<ApiClientView> {
    return clientView(await new ApiClientService(em, tokenStanding).enable(appId));
  }

  @Allowed('rotateApiClientSecret')
  @Mutation(() => CreatedApiClient, {
    description:
      "A new secret, returned once; the old one stops working at once. The client's tokens stay valid until they expire unless revokeTokens.",
  })
  async rotateApiClientSecret(
    @Arg('appId', () => String) appId: string,
    @Arg('revokeTokens', () => Boolean, { defaultValue: false, description: 'Also refuse every token issued so far (a leaked secret).' })
    revokeTokens: boolean,
    @Ctx() { em, tokenStanding }: AuthContext,
  ): Promise<CreatedApiClient> {
    const { client, secret } = await new ApiClientService(em, tokenStanding).rotateSecret(appId, revokeTokens);
    return { ...identity(client), secret };
  }
}
