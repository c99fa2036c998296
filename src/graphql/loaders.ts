import type { EntityManager } from '@mikro-orm/core';
import DataLoader from 'dataloader';
import type { Viewer } from '../auth/viewer';
import { ProposalService, type ProposalResult } from '../proposals/proposal.service';
import { TenderHistoryEntry } from '../tenders/tender-history-entry.entity';
import type { RowBudget } from './row-budget';

/** Per-request batching of nested fields, so a page of tenders costs the same few queries at any size. */
export interface Loaders {
  proposal: DataLoader<string, ProposalResult>;
  history: DataLoader<string, TenderHistoryEntry[]>;
}

/** Every row a loader reads counts against the operation's budget; no query reads more than one row past it. */
export function createLoaders(em: EntityManager, viewer: Viewer, rows: RowBudget): Loaders {
  return {
    proposal: new DataLoader((ids) =>
      rows.read(
        () => new ProposalService(em, viewer).loadMany(ids, rows.remaining + 1),
        (results) => results.reduce((sum, result) => sum + (result instanceof Error ? 0 : rowsOf(result)), 0),
      ),
    ),
    history: new DataLoader(async (ids) => {
      const entries = await rows.read(
        () => em.find(TenderHistoryEntry, { tender: { $in: [...ids] } }, { orderBy: { at: 'asc', id: 'asc' }, limit: rows.remaining + 1 }),
        (found) => found.length,
      );
      return ids.map((id) => entries.filter((entry) => entry.tender.id === id));
    }),
  };
}

const rowsOf = ({ requests }: ProposalResult) => requests.reduce((sum, request) => sum + 1 + request.options.length, 0);
