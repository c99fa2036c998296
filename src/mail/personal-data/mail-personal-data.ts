import { ERASED, groupedBy, type PersonalData } from '../../parties';
import { MailMessage, MailStatus } from '../mail-message.entity';

/** Mails not gone yet: waiting to be sent, or held for a digest. */
const NOT_GONE = [MailStatus.PENDING, MailStatus.HELD];

/**
 * The mails about a customer's tenders: their recipients' addresses and names (the tender's person in charge, the
 * insurers' contacts). An erasure cancels those not sent yet (none goes to an erased person afterwards, nor to anyone
 * about an erased customer) and empties the address and name of every one of them; a mail being sent at that moment
 * goes once more at most. The export lists each tender's mails: to whom, which kind, when, and how it stands.
 */
export const mailPersonalData: PersonalData = {
  fields: [
    { entity: 'MailMessage', property: 'recipientAddress' },
    { entity: 'MailMessage', property: 'recipientName' },
  ],
  async erase(tx, scope) {
    const tenderIds = scope.tenders.map((tender) => tender.id);
    if (tenderIds.length === 0) return {};
    await tx.nativeUpdate(
      MailMessage,
      { tenderId: { $in: tenderIds }, status: { $in: NOT_GONE } },
      { status: MailStatus.CANCELLED, nextAttemptAt: null },
    );
    await tx.nativeUpdate(MailMessage, { tenderId: { $in: tenderIds } }, { recipientAddress: ERASED, recipientName: ERASED });
    return {};
  },
  async export(em, scope) {
    const mails = await em.find(
      MailMessage,
      { tenderId: { $in: [...scope.tenderIds] } },
      { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
    );
    const mailsOf = groupedBy(mails, (mail) => mail.tenderId ?? '');
    return {
      tenders: new Map(
        scope.tenderIds.map((tenderId) => [
          tenderId,
          {
            mails: mailsOf(tenderId).map((mail) => ({
              _id: mail.id,
              recipient_address: mail.recipientAddress,
              recipient_name: mail.recipientName,
              kind: mail.template,
              status: mail.status,
              created_at: mail.createdAt.toISOString(),
              sent_at: mail.sentAt?.toISOString() ?? null,
            })),
          },
        ]),
      ),
    };
  },
};
