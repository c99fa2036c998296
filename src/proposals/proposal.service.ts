import type { EntityManager } from '@mikro-orm/core';
import { Role } from '../auth/role';
import type { Viewer } from '../auth/viewer';
import { QuoteRequestService, findVisibleTender } from '../quotes/quote-request.service';
import type { ProposalView, QuoteRequestView } from '../quotes/quote.types';
import { isRedactedFor } from '../tenders/tender-visibility';
import { buildProposal } from './proposal';

export class ProposalService {
  constructor(
    private readonly em: EntityManager,
    private readonly viewer: Viewer,
  ) {}

  /**
   * The tender's proposal and quote requests as this viewer may see them: brokers and internal users all,
   * an insurer only its own, and nothing of a tender withheld from it for privacy.
   */
  async load(tenderId: string): Promise<{ proposal: ProposalView; requests: QuoteRequestView[] }> {
    const tender = await findVisibleTender(this.em, this.viewer, tenderId);
    const redacted = isRedactedFor(this.viewer, tender);
    const requests = redacted ? [] : await new QuoteRequestService(this.em, this.viewer).ofTender(tender);
    return buildProposal(tender, requests, { showTaxRate: !redacted, showActors: this.viewer.role !== Role.INSURER });
  }
}
