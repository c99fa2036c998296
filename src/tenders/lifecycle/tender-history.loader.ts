import DataLoader from 'dataloader';
import type { RequestContext } from '../../access';
import { TenderHistoryEntry } from '../tender-history-entry.entity';

/** Every tender's history on a page in one query; its rows count against the operation's budget. */
const createHistoryLoader = ({ em, rows }: RequestContext) =>
  new DataLoader<string, TenderHistoryEntry[]>(async (ids) => {
    const entries = await rows.read(
      () => em.find(TenderHistoryEntry, { tender: { $in: [...ids] } }, { orderBy: { at: 'asc', id: 'asc' }, limit: rows.remaining + 1 }),
      (found) => found.length,
    );
    return ids.map((id) => entries.filter((entry) => entry.tender.id === id));
  });

export const historyLoader = (context: RequestContext) => context.once(createHistoryLoader);
