import DataLoader from 'dataloader';
import { Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { Role, type RequestContext } from '../../access';
import { QuoteRequestView } from '../../quotes';
import { Tender, isRedactedFor } from '../../tenders';
import { TenderMessage } from '../thread/tender-message.entity';
import { openQuestions } from './open-questions';

interface Thread {
  tenderId: string;
  insurerId: string;
}

const keyOf = (thread: Thread): string => `${thread.tenderId}:${thread.insurerId}`;

/** The open questions of the threads an operation shows, in two statements: the threads' messages and their tenders. */
const createOpenQuestionsLoader = ({ em, rows, viewer }: RequestContext) =>
  new DataLoader<Thread, number, string>(
    async (threads) => {
      const tenderIds = [...new Set(threads.map((thread) => thread.tenderId))];
      const messages = await rows.read(
        () =>
          em.find(
            TenderMessage,
            { tender: { $in: tenderIds }, insurer: { $in: [...new Set(threads.map((thread) => thread.insurerId))] } },
            {
              fields: ['tender', 'insurer', 'authorRole', 'requestsInformation', 'createdAt'],
              orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
            },
          ),
        (found) => found.length,
      );
      const tenders = await em.find(Tender, { id: { $in: tenderIds } }, { fields: ['id', 'status', 'awardedInsurer'] });
      const hidden = new Set(
        tenders.filter((tender) => isRedactedFor(viewer, tender.status, tender.awardedInsurer?.id)).map((tender) => tender.id),
      );
      const byThread = new Map<string, (typeof messages)[number][]>();
      for (const message of messages) {
        const key = keyOf({ tenderId: message.tender.id, insurerId: message.insurer.id });
        byThread.set(key, [...(byThread.get(key) ?? []), message]);
      }
      return threads.map((thread) => (hidden.has(thread.tenderId) ? 0 : openQuestions(byThread.get(keyOf(thread)) ?? [])));
    },
    { cacheKeyFn: keyOf, maxBatchSize: 500 },
  );
const openQuestionsLoader = (context: RequestContext) => context.once(createOpenQuestionsLoader);

@Resolver(() => QuoteRequestView)
export class OpenQuestionsResolver {
  @FieldResolver(() => Int, {
    description:
      "The insurer's messages asking for information (requestsInformation) in this tender's thread since the broker's side last wrote; 0 for analysts.",
  })
  async openQuestions(@Root() request: QuoteRequestView, @Ctx() context: RequestContext): Promise<number> {
    // Analysts never read the threads, not even how many questions wait in one.
    if (context.viewer.role === Role.ANALYST) return 0;
    return openQuestionsLoader(context).load({ tenderId: request.tenderId, insurerId: request.insurer.id });
  }
}
