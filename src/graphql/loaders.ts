import type { EntityManager } from '@mikro-orm/core';
import DataLoader from 'dataloader';
import type { Viewer } from '../auth/viewer';
import { ProposalService, type ProposalResult } from '../proposals/proposal.service';
import { TenderHistoryEntry } from '../tenders/tender-history-entry.entity';

/** Per-request batching of nested fields, so a page of tenders costs the same few queries at any size. */
export interface Loaders {
  proposal: DataLoader<string, ProposalResult>;
  history: DataLoader<string, TenderHistoryEntry[]>;
}

export function createLoaders(em: EntityManager, viewer: Viewer): Loaders {
  return {
    proposal: new DataLoader((ids) => new ProposalService(em, viewer).loadMany(ids)),
    history: new DataLoader(async (ids) => {
      const entries = await em.find(TenderHistoryEntry, { tender: { $in: [...ids] } }, { orderBy: { at: 'asc', id: 'asc' } });
      return ids.map((id) => entries.filter((entry) => entry.tender.id === id));
    }),
  };
}
