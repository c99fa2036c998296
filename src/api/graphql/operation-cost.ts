import type { DocumentNode, GraphQLSchema } from 'graphql';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import { LIMITS } from '../../platform/validation/rules';

/**
 * What an operation costs is the rows it may read, estimated before it runs. A page counts its `limit`, so
 * aliases of large pages add up instead of passing as one static field each. Nested lists that are loaded whole
 * count an assumed size; the row budget (row-budget.ts) holds the operation to the real figure while it runs.
 */
export const ASSUMED_ROWS = {
  /** A tender's quote requests with their options. */
  proposal: 20,
  /** A tender's status changes. */
  history: 10,
  /** Reference lists: insurers, lines of business. */
  reference: 50,
  /** Statistics aggregate every tender in the period: priced as an expensive operation. */
  statistics: 2000,
} as const;

type RowRule = (args: Record<string, unknown>, childRows: number) => number;

const pageSize = (args: Record<string, unknown>) => Math.min(typeof args.limit === 'number' ? args.limit : LIMITS.defaultPageSize, LIMITS.pageSize);

/** By `Type.field`; any other field costs what its selection costs (an object joined into its parent's row: nothing). */
const ROWS: Record<string, RowRule> = {
  'Query.tenders': (args, child) => 1 + pageSize(args) * child,
  'TenderPage.items': (_args, child) => 1 + child,
  'Query.tender': (_args, child) => 1 + child,
  'Tender.history': () => ASSUMED_ROWS.history,
  'Tender.proposal': () => ASSUMED_ROWS.proposal,
  'Query.proposal': () => ASSUMED_ROWS.proposal,
  'Query.quoteRequests': () => ASSUMED_ROWS.proposal,
  'Mutation.requestQuotes': () => ASSUMED_ROWS.proposal,
  'Query.insurers': () => ASSUMED_ROWS.reference,
  'Query.linesOfBusiness': () => ASSUMED_ROWS.reference,
  'Query.tenderStatistics': () => ASSUMED_ROWS.statistics,
};

const rowEstimator: ComplexityEstimator = ({ type, field, args, childComplexity }) => {
  const rule = ROWS[`${type.name}.${field.name}`];
  return rule ? rule(args, childComplexity) : childComplexity;
};

/** The rows an operation may read; throws (graphql-js's own error) when its variables do not fit its definitions. */
export function estimateRows(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined, variables: Record<string, unknown>): number {
  return getComplexity({ schema, query: document, operationName, variables, estimators: [rowEstimator] });
}
