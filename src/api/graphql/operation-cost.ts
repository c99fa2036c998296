import { Kind, type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema, type SelectionSetNode } from 'graphql';
import { getComplexity, type ComplexityEstimator, type ComplexityEstimatorArgs } from 'graphql-query-complexity';
import { rowsOfJson } from '../../platform/db/row-budget';
import { LIMITS } from '../../platform/validation/rules';

/**
 * What an operation costs is the rows it may read, estimated before it runs. A page counts its `limit`, so
 * aliases of large pages add up instead of passing as one static field each. Nested lists that are loaded whole
 * count an assumed size; the row budget (row-budget.ts) holds the operation to the real figure while it runs.
 */
export const ASSUMED_ROWS = {
  /** A tender's quote requests with their options: loaded for a proposal's entries, cheapest or ordered option, and for `quoteRequests`. */
  proposal: 20,
  /** A tender's status changes. */
  history: 10,
  /** A tender's documents (at most 100 each; the row budget counts the real number). */
  documents: 10,
  /** Reference lists: insurers, lines of business. */
  reference: 50,
  /** Statistics aggregate every tender in the period: priced as an expensive operation. */
  statistics: 2000,
  /**
   * One quote request's risk information, at the largest a request may carry (LIMITS.riskInformationBytes), in rows
   * by its bytes as the row budget counts them. Priced for every request a tender may hold: the risk information of
   * one tender at its bounds is an expensive operation, of several more than one operation may read.
   */
  riskInformation: rowsOfJson(LIMITS.riskInformationBytes),
} as const;

/** Mutations that call partner systems and hold their request for seconds: at most one per operation. */
const ONCE_PER_OPERATION = new Set(['Mutation.checkInsurer']);

/** A proposal's fields that need the tender's quote requests loaded; `tenderId` and `taxRate` are the tender's own. */
const PROPOSAL_REQUEST_FIELDS = new Set(['entries', 'cheapest', 'orderedOptionId']);

type RowRule = (args: Record<string, unknown>, childRows: number, selects: (fields: ReadonlySet<string>) => boolean) => number;

const pageSize = (args: Record<string, unknown>) =>
  Math.min(typeof args.limit === 'number' ? args.limit : LIMITS.defaultPageSize, LIMITS.pageSize);
const proposalRequests = (selects: (fields: ReadonlySet<string>) => boolean) =>
  selects(PROPOSAL_REQUEST_FIELDS) ? ASSUMED_ROWS.proposal : 0;

/**
 * By `Type.field`; any other field costs what its selection costs (an object joined into its parent's row: nothing).
 * Lists of a tender's quote requests count their selection once per request the tender may hold
 * (LIMITS.quoteRequestsPerTender): what a request's own row carries is in the assumed rows, its risk information not.
 */
const ROWS: Record<string, RowRule> = {
  'Query.tenders': (args, child) => 1 + pageSize(args) * child,
  'TenderPage.items': (_args, child) => 1 + child,
  'Query.tender': (_args, child) => 1 + child,
  'Tender.history': () => ASSUMED_ROWS.history,
  'Tender.documents': () => ASSUMED_ROWS.documents,
  'Tender.proposal': (_args, child, selects) => proposalRequests(selects) + child,
  'Query.proposal': (_args, child, selects) => 1 + proposalRequests(selects) + child,
  'Proposal.entries': (_args, child) => LIMITS.quoteRequestsPerTender * child,
  'Query.quoteRequests': (_args, child) => ASSUMED_ROWS.proposal + LIMITS.quoteRequestsPerTender * child,
  'Mutation.requestQuotes': (_args, child) => ASSUMED_ROWS.proposal + LIMITS.insurersPerQuoteRequest * child,
  // The answered request is shown from its tender's quote requests, loaded as for `quoteRequests`.
  'Mutation.submitManualQuote': (_args, child) => ASSUMED_ROWS.proposal + child,
  // The advice export reads the tender's proposal whole, as a proposal's entries do.
  'Mutation.exportProposal': (_args, child) => ASSUMED_ROWS.proposal + child,
  'QuoteRequest.riskInformation': () => ASSUMED_ROWS.riskInformation,
  'Query.insurers': () => ASSUMED_ROWS.reference,
  'Query.linesOfBusiness': () => ASSUMED_ROWS.reference,
  'Query.tenderStatistics': () => ASSUMED_ROWS.statistics,
};

/** Whether a selection asks for any of `fields` directly, through its fragments or inline fragments. */
function selectsAny(
  selectionSet: SelectionSetNode | undefined,
  fields: ReadonlySet<string>,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  seen = new Set<string>(),
): boolean {
  for (const selection of selectionSet?.selections ?? []) {
    if (selection.kind === Kind.FIELD && fields.has(selection.name.value)) return true;
    if (selection.kind === Kind.INLINE_FRAGMENT && selectsAny(selection.selectionSet, fields, fragments, seen)) return true;
    if (selection.kind === Kind.FRAGMENT_SPREAD && !seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      if (selectsAny(fragments.get(selection.name.value)?.selectionSet, fields, fragments, seen)) return true;
    }
  }
  return false;
}

/** One operation's estimator: the row rules, and the fields it may hold once. */
function rowEstimator(document: DocumentNode): ComplexityEstimator {
  const fragments = new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  const seenOnce = new Set<string>();
  return ({ type, field, node, args, childComplexity }: ComplexityEstimatorArgs) => {
    const key = `${type.name}.${field.name}`;
    if (ONCE_PER_OPERATION.has(key)) {
      if (seenOnce.has(key)) throw new Error(`An operation may run ${field.name} once; send each check in an operation of its own`);
      seenOnce.add(key);
    }
    const rule = ROWS[key];
    return rule ? rule(args, childComplexity, (fields) => selectsAny(node.selectionSet, fields, fragments)) : childComplexity;
  };
}

/**
 * The rows an operation may read; throws (graphql-js's own error) when its variables do not fit its definitions,
 * and when it holds a field that runs at most once per operation (`checkInsurer`) more than once.
 */
export function estimateRows(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown>,
): number {
  return getComplexity({ schema, query: document, operationName, variables, estimators: [rowEstimator(document)] });
}
