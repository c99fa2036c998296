import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { Allowed, recordRead, sees, type RequestContext, type Viewer } from '../../access';
import type { MessageContext } from '../message-context';
import type { TenderMessage } from './tender-message.entity';
import { postMessage, threadMessages } from './message-thread.service';
import { PostTenderMessageInput, TenderMessageView } from './tender-message.types';

/** A message as the viewer sees it: insurers see no author, as they see no actors elsewhere. */
const presentMessage = (message: TenderMessage, viewer: Viewer): TenderMessageView => ({
  id: message.id,
  tenderId: message.tender.id,
  insurerId: message.insurer.id,
  authorRole: message.authorRole as TenderMessageView['authorRole'],
  author: sees.actors(viewer) ? message.authorAppId : null,
  text: message.text,
  documentIds: message.documentIds,
  requestsInformation: message.requestsInformation,
  createdAt: message.createdAt,
});

@Resolver(() => TenderMessageView)
export class TenderMessageResolver {
  @Allowed('tenderMessages')
  @Query(() => [TenderMessageView], {
    description:
      "A tender's clarification threads, oldest first: one insurer's, or every thread when none is named (the broker, internal users); an insurer reads its own.",
  })
  async tenderMessages(
    @Arg('tenderId', () => ID) tenderId: string,
    @Arg('insurerId', () => ID, { nullable: true }) insurerId: string | undefined,
    @Ctx() context: RequestContext,
  ): Promise<TenderMessageView[]> {
    const messages = await threadMessages(context, tenderId, insurerId);
    // The messages' text is the customer's personal data: a read of it.
    if (messages.length > 0) recordRead(context, tenderId, 'tenderMessages');
    return messages.map((message) => presentMessage(message, context.viewer));
  }

  @Allowed('postTenderMessage')
  @Mutation(() => TenderMessageView, {
    description:
      "Posts a message in the thread of a tender and an invited insurer: the tender's broker, that insurer or an internal user; not once the tender is CLOSED (or won by another) for the insurer.",
  })
  async postTenderMessage(
    @Arg('input', () => PostTenderMessageInput) input: PostTenderMessageInput,
    @Ctx() context: MessageContext,
  ): Promise<TenderMessageView> {
    const message = await postMessage(context, input);
    return presentMessage(message, context.viewer);
  }
}
