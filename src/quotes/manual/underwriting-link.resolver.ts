import { Arg, Ctx, Field, ID, Mutation, ObjectType, Resolver } from 'type-graphql';
import { Allowed } from '../../access';
import { TimestampScalar } from '../../platform/validation/timestamp';
import type { QuoteContext } from '../quote-context';
import { renewUnderwritingLink } from './underwriting-links';

@ObjectType('UnderwritingLink', {
  simpleResolvers: true,
  description: "A link that opens a MANUAL insurer's quote page for one quote request, without an API client (docs/people.md).",
})
class UnderwritingLinkView {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  quoteRequestId!: string;

  @Field(() => String, {
    description:
      "The page: PUBLIC_URL (or the request's origin), /underwriting/ and the token. A credential: share it with the underwriter only.",
  })
  url!: string;

  @Field(() => TimestampScalar)
  expiresAt!: Date;
}

@Resolver()
export class UnderwritingLinkResolver {
  @Allowed('renewUnderwritingLink')
  @Mutation(() => UnderwritingLinkView, {
    description:
      "A fresh link to a MANUAL quote request's page (the insurer's own client, internal users), 30 days; the request's earlier links end.",
  })
  async renewUnderwritingLink(
    @Arg('quoteRequestId', () => ID) quoteRequestId: string,
    @Ctx() context: QuoteContext,
  ): Promise<UnderwritingLinkView> {
    const link = await renewUnderwritingLink(context.em, context.viewer, context.links, quoteRequestId, context.clock.now());
    return { id: link.id, quoteRequestId, url: context.links.urlOf(link, context.publicOrigin), expiresAt: link.expiresAt };
  }
}
