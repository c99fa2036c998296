import DataLoader from 'dataloader';
import type { RequestContext } from '../../access';
import { jsonOfColumn } from '../../platform/db/column-values';
import { rowsOfJson } from '../../platform/db/row-budget';

/** Ids per statement: well within either engine's limit on parameters. */
const BATCH = 500;

/**
 * The risk information of quote requests the viewer was already shown (their ids come from the proposal loader),
 * read only when `QuoteRequest.riskInformation` is asked for. Its size (kept beside it when it was written) is
 * read first and counted against the operation's row budget by its bytes, so an operation over the budget stops
 * before the JSON is read.
 */
const createRiskInformationLoader = ({ em, rows }: RequestContext) =>
  new DataLoader<string, Record<string, unknown>>(
    async (ids) => {
      const connection = em.getConnection();
      const params = [...ids];
      const marks = ids.map(() => '?').join(', ');
      const found = await rows.readMeasured(
        async () => {
          const sizes = (await connection.execute(
            `select risk_information_bytes as size from quote_request where id in (${marks})`,
            params,
            'all',
          )) as { size: number | string | null }[];
          return sizes.reduce((sum, { size }) => sum + rowsOfJson(Number(size ?? 0)), 0);
        },
        async () =>
          (await connection.execute(`select id, risk_information from quote_request where id in (${marks})`, params, 'all')) as {
            id: string;
            risk_information: unknown;
          }[],
      );
      const byId = new Map(found.map((row) => [row.id, jsonOfColumn<Record<string, unknown>>(row.risk_information)]));
      return ids.map((id) => byId.get(id) ?? new Error(`quote request ${id} is gone`));
    },
    { maxBatchSize: BATCH },
  );

export const riskInformationLoader = (context: RequestContext) => context.once(createRiskInformationLoader);
