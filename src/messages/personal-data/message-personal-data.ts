import { ERASED, groupedBy, type PersonalData } from '../../parties';
import { TenderMessage } from '../thread/tender-message.entity';

/**
 * The clarification threads' part of a customer's personal data: the messages' text (free text may name anyone) is
 * emptied; who wrote when, the documents named and whether it asked for information stay. The export shows each
 * tender's messages, oldest first.
 */
export const messagePersonalData: PersonalData = {
  fields: [{ entity: 'TenderMessage', property: 'text' }],
  async erase(tx, scope) {
    const messages = await tx.find(TenderMessage, { tender: { customer: scope.customerId }, erasedAt: null });
    for (const message of messages) {
      message.text = ERASED;
      message.erasedAt = scope.at;
    }
    await tx.flush();
    return {};
  },
  async export(em, scope) {
    const messages = await em.find(
      TenderMessage,
      { tender: { $in: [...scope.tenderIds] } },
      { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
    );
    const messagesOf = groupedBy(messages, (message) => message.tender.id);
    return {
      tenders: new Map(
        scope.tenderIds.map((tenderId) => [
          tenderId,
          {
            messages: messagesOf(tenderId).map((message) => ({
              _id: message.id,
              insurer_id: message.insurer.id,
              author_role: message.authorRole.toUpperCase(),
              text: message.text,
              document_ids: message.documentIds,
              requests_information: message.requestsInformation,
              created_at: message.createdAt.toISOString(),
            })),
          },
        ]),
      ),
    };
  },
};
