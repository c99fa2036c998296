import DataLoader from 'dataloader';
import type { RequestContext } from '../../access';
import { ProposalService, type ProposalResult } from './proposal.service';

const rowsOf = ({ requests }: ProposalResult) => requests.reduce((sum, request) => sum + 1 + request.options.length, 0);

/** The proposals of every tender on a page in a few queries; no query reads more than one row past the budget. */
const createProposalLoader = ({ em, viewer, rows }: RequestContext) =>
  new DataLoader<string, ProposalResult>((ids) =>
    rows.read(
      () => new ProposalService(em, viewer).loadMany(ids, rows.remaining + 1),
      (results) => results.reduce((sum, result) => sum + (result instanceof Error ? 0 : rowsOf(result)), 0),
    ),
  );

export const proposalLoader = (context: RequestContext) => context.once(createProposalLoader);
