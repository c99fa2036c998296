import type { EntityManager } from '@mikro-orm/core';
import { scopeOf, sees, type Viewer } from '../../access';
import { notFound } from '../../platform/errors/domain-error';
import { QuoteRequest } from '../quote-request.entity';
import type { ProposalOverview } from './proposal.types';
import type { QuoteRequestView } from '../quote.types';
import { Tender, isRedactedFor, visibleTenders } from '../../tenders';
import { buildProposal } from './proposal';

export interface ProposalResult {
  proposal: ProposalOverview;
  requests: QuoteRequestView[];
}

export class ProposalService {
  constructor(
    private readonly em: EntityManager,
    private readonly viewer: Viewer,
  ) {}

  /**
   * Proposals and quote requests of several tenders, as this viewer may see them, in two queries whatever their
   * number: brokers and internal users see all, an insurer only its own, and nothing of a tender withheld from
   * it for privacy. A tender the viewer may not see comes back as NOT_FOUND, in its place.
   */
  async loadMany(tenderIds: readonly string[], maxRequests?: number, now = new Date()): Promise<(ProposalResult | Error)[]> {
    const tenders = await this.em.find(Tender, { $and: [{ id: { $in: [...tenderIds] } }, visibleTenders(this.viewer)] });
    const shown = new Set(
      tenders.filter((tender) => !isRedactedFor(this.viewer, tender.status, tender.awardedInsurer?.id)).map((tender) => tender.id),
    );
    const scope = scopeOf(this.viewer);
    const own = scope.kind === 'insurer' ? { insurer: scope.insurerId } : {};
    const requests =
      shown.size === 0
        ? []
        : await this.em.find(
            QuoteRequest,
            { tender: { $in: [...shown] }, ...own },
            {
              populate: ['insurer', 'options', 'options.tracked', 'options.tracked.steps'],
              orderBy: { createdAt: 'desc', id: 'desc' },
              ...(maxRequests === undefined ? {} : { limit: maxRequests }),
            },
          );
    const byId = new Map(tenders.map((tender) => [tender.id, tender]));
    return tenderIds.map((id) => {
      const tender = byId.get(id);
      if (!tender) return notFound(`Tender ${id} not found`);
      const mine = requests.filter((request) => request.tender.id === id);
      return buildProposal(
        tender,
        mine,
        {
          showTaxRate: shown.has(id),
          showActors: sees.actors(this.viewer),
          showInternal: sees.internalNotes(this.viewer),
          showReasons: sees.underwriterReasons(this.viewer),
        },
        now,
      );
    });
  }

  /** One tender's proposal, what has expired judged at `now`. */
  async load(tenderId: string, now = new Date()): Promise<ProposalResult> {
    const [result] = await this.loadMany([tenderId], undefined, now);
    if (result instanceof Error) throw result;
    return result;
  }
}
