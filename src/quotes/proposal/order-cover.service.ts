import type { EntityManager } from '@mikro-orm/core';
import type { Viewer } from '../../access';
import { DomainError, badInput } from '../../platform/errors/domain-error';
import { hasExpired } from './proposal';
import { TenderLifecycleService, type TenderChangeListener, type Tender } from '../../tenders';
import { QuoteOption } from '../quote-option.entity';
import { QuoteRequestStatus } from '../quote-request-status';

/** Cover is ordered on one option of a quote this tender received; its insurer becomes the awarded one. */
export function orderCover(
  em: EntityManager,
  viewer: Viewer,
  listeners: readonly TenderChangeListener[],
  tenderId: string,
  quoteOptionId: string,
  now: () => Date = () => new Date(),
): Promise<Tender> {
  return new TenderLifecycleService(em, viewer, listeners, now).orderCover(tenderId, async (tender: Tender) => {
    const option = await em.findOne(QuoteOption, { id: quoteOptionId }, { populate: ['quoteRequest.insurer'] });
    const ours = option && option.quoteRequest.tender.id === tender.id;
    // Past its validity (whether or not the sweep has marked it yet), a quote cannot be ordered; nothing changes.
    if (ours && hasExpired(option.quoteRequest, new Date())) {
      throw new DomainError(
        'QUOTE_EXPIRED',
        `The quote's validity ended at ${option.quoteRequest.validUntil?.toISOString() ?? 'an earlier time'}; ask the insurer for a new quote`,
        [{ parameter: 'quoteOptionId', message: 'its quote has expired' }],
      );
    }
    const received = ours && option.quoteRequest.status === QuoteRequestStatus.QUOTED;
    if (!received) {
      throw badInput('The option is not one of the quotes this tender received', [
        { parameter: 'quoteOptionId', message: 'unknown for this tender' },
      ]);
    }
    tender.orderedOption = option;
    tender.awardedInsurer = option.quoteRequest.insurer;
    // A new order waits for its answer (acceptCoverOrder, declineCoverOrder, or finalising it).
    tender.coverOrderedAt = now();
    tender.coverAcceptedAt = null;
    tender.inceptionDate = null;
    tender.coverOrderOverdueAt = null;
  });
}
