import {
  Kind,
  OperationTypeNode,
  getOperationAST,
  valueFromASTUntyped,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { getComplexity, type ComplexityEstimator, type ComplexityEstimatorArgs } from 'graphql-query-complexity';
import { rowsOfJson } from '../../platform/db/row-budget';
import { setNewest } from '../../platform/bounded-map';
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
  /** A tender's clarification messages, one thread or all (at most LIMITS.messagesPerThread a thread; the row budget counts the real number). */
  messages: 50,
  /** A tender's subjectivities with their steps (at most 20 an option; the row budget counts the real number). */
  subjectivities: 40,
  /** Reference lists: insurers, lines of business. */
  reference: 50,
  /** Statistics aggregate every tender in the period: priced as an expensive operation. */
  statistics: 2000,
  /**
   * One quote request's risk information, at the largest a request may carry (LIMITS.riskInformationBytes), in rows
   * by its bytes as the row budget counts them. Priced so for every request a tender may hold where the tenders are
   * not known before the operation runs (a page of tenders, a mutation's answer): the risk information of one tender
   * at its bounds is an expensive operation, of several more than one operation may read. Where the operation names
   * its tenders, what they hold is priced instead (QuoteSizes).
   */
  riskInformation: rowsOfJson(LIMITS.riskInformationBytes),
  /** A tender's risk answers at their largest (LIMITS.riskAnswersBytes), in rows by their bytes. */
  riskAnswers: rowsOfJson(LIMITS.riskAnswersBytes),
  /** A question set's schema at its largest (LIMITS.questionSetBytes). */
  questionSet: rowsOfJson(LIMITS.questionSetBytes),
} as const;

/**
 * What a tender's quote requests are priced at: how many a tender holds, and the rows of one request's risk
 * information. At most the bounds (QUOTE_SIZE_BOUNDS) unless the operation names its tenders and their stored sizes
 * are known (`pricedTenders`, then quotes' `storedQuoteSizes`): a broker polling three tenders' risk information
 * of a few hundred bytes each is priced at what they hold, not at 8 050 rows each.
 */
export interface QuoteSizes {
  requestsPerTender: number;
  riskInformationRows: number;
}

export const QUOTE_SIZE_BOUNDS: QuoteSizes = {
  requestsPerTender: LIMITS.quoteRequestsPerTender,
  riskInformationRows: ASSUMED_ROWS.riskInformation,
};

/** Fields that name one tender whose quote requests they show, and the argument that names it. */
const TENDER_ROOTS: Record<string, string> = { quoteRequests: 'tenderId', proposal: 'tenderId', tender: 'id' };

/** Whether `name` is selected anywhere below a selection (through fragments). */
function selectsBelow(
  selectionSet: SelectionSetNode | undefined,
  name: string,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  seen = new Set<string>(),
): boolean {
  for (const selection of selectionSet?.selections ?? []) {
    if (selection.kind === Kind.FIELD && (selection.name.value === name || selectsBelow(selection.selectionSet, name, fragments, seen)))
      return true;
    if (selection.kind === Kind.INLINE_FRAGMENT && selectsBelow(selection.selectionSet, name, fragments, seen)) return true;
    if (selection.kind === Kind.FRAGMENT_SPREAD && !seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      if (selectsBelow(fragments.get(selection.name.value)?.selectionSet, name, fragments, seen)) return true;
    }
  }
  return false;
}

/** The root fields of a selection, through fragments and inline fragments. */
function rootFields(
  selectionSet: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  seen = new Set<string>(),
): FieldNode[] {
  return selectionSet.selections.flatMap((selection) => {
    if (selection.kind === Kind.FIELD) return [selection];
    if (selection.kind === Kind.INLINE_FRAGMENT) return rootFields(selection.selectionSet, fragments, seen);
    const fragment = fragments.get(selection.name.value);
    if (!fragment || seen.has(selection.name.value)) return [];
    seen.add(selection.name.value);
    return rootFields(fragment.selectionSet, fragments, seen);
  });
}

/**
 * The tenders whose stored sizes may price an operation's risk information: those its query names
 * (`quoteRequests(tenderId)`, `proposal(tenderId)`, `tender(id)`), when every `riskInformation` it selects is below
 * one of them. Undefined when some is not (a page of tenders, a mutation: priced at the bounds) or none is selected.
 */
export function pricedTenders(
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown>,
): string[] | undefined {
  const operation = getOperationAST(document, operationName);
  if (!operation) return undefined;
  const fragments = new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  const ids = new Set<string>();
  for (const field of rootFields(operation.selectionSet, fragments)) {
    if (!selectsBelow(field.selectionSet, 'riskInformation', fragments)) continue;
    const argument = operation.operation === OperationTypeNode.QUERY ? TENDER_ROOTS[field.name.value] : undefined;
    const node = argument ? field.arguments?.find((arg) => arg.name.value === argument) : undefined;
    const id = node ? valueFromASTUntyped(node.value, variables) : undefined;
    if (typeof id !== 'string') return undefined;
    ids.add(id);
  }
  return ids.size > 0 ? [...ids] : undefined;
}

/** Mutations that call partner systems and hold their request for seconds: at most one per operation. */
const ONCE_PER_OPERATION = new Set(['Mutation.checkInsurer']);

/** A proposal's fields that need the tender's quote requests loaded; `tenderId` and `taxRate` are the tender's own. */
const PROPOSAL_REQUEST_FIELDS = new Set(['entries', 'cheapest', 'orderedOptionId']);

type RowRule = (
  args: Record<string, unknown>,
  childRows: number,
  selects: (fields: ReadonlySet<string>) => boolean,
  sizes: QuoteSizes,
) => number;

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
  'Proposal.entries': (_args, child, _selects, sizes) => sizes.requestsPerTender * child,
  'Query.quoteRequests': (_args, child, _selects, sizes) => ASSUMED_ROWS.proposal + sizes.requestsPerTender * child,
  'Mutation.requestQuotes': (_args, child) => ASSUMED_ROWS.proposal + LIMITS.insurersPerQuoteRequest * child,
  // The answered request is shown from its tender's quote requests, loaded as for `quoteRequests`.
  'Mutation.submitManualQuote': (_args, child) => ASSUMED_ROWS.proposal + child,
  // The request, its earlier links revoked (at most a few) and the new one.
  'Mutation.renewUnderwritingLink': () => 4,
  // The advice export reads the tender's proposal whole, as a proposal's entries do.
  'Mutation.exportProposal': (_args, child) => ASSUMED_ROWS.proposal + child,
  'QuoteRequest.riskInformation': (_args, _child, _selects, sizes) => sizes.riskInformationRows,
  'Tender.riskAssessment': (_args, child) => ASSUMED_ROWS.riskAnswers + child,
  'Mutation.saveRiskAnswers': (_args, child) => ASSUMED_ROWS.riskAnswers + child,
  // A set's schema is priced at its largest where it is selected: a list of versions without it is cheap, with it a
  // list of large documents (read each by `questionSet(product, version)`).
  'QuestionSet.schema': () => ASSUMED_ROWS.questionSet,
  'Query.questionSet': (_args, child) => 1 + child,
  'Query.questionSets': (_args, child) => ASSUMED_ROWS.reference * (1 + child),
  'Mutation.publishQuestionSet': (_args, child) => ASSUMED_ROWS.questionSet + child,
  'Query.tenderMessages': () => 1 + ASSUMED_ROWS.messages,
  'Mutation.postTenderMessage': () => 2,
  'Query.questionnaireLinks': () => 1 + LIMITS.questionnaireLinksPerTender,
  'Mutation.createQuestionnaireLink': () => 2,
  'Mutation.revokeQuestionnaireLink': () => 2,
  'Query.tenderSubjectivities': () => 1 + ASSUMED_ROWS.subjectivities,
  // A step reads the subjectivity and its tender, writes, and answers the subjectivity with its steps.
  'Mutation.respondToSubjectivity': () => 3,
  'Mutation.decideSubjectivity': () => 3,
  // The caller's person or contact looked up, the address's row read or written.
  'Query.notificationPreferences': () => 2,
  'Mutation.setNotificationPreferences': () => 2,
  // Renewals (docs/renewals.md): each renewal its tender's row, its joins and the expiring option.
  'Query.renewals': (args, child) => 1 + (typeof args.limit === 'number' ? args.limit : 100) * (2 + child),
  'Renewal.tender': (_args, child) => child,
  // A renewal tender's proposal against the expiring one: both tenders, the expiring option, the proposal's requests.
  'Proposal.renewal': (_args, child) => 3 + ASSUMED_ROWS.proposal + child,
  'Mutation.setRenewalTerms': (_args, child) => 3 + child,
  'Mutation.renewTender': (_args, child) => 6 + child,
  'Mutation.recordRenewalDecision': (_args, child) => 3 + child,
  'Mutation.notifyNonRenewal': (_args, child) => 3 + child,
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
function rowEstimator(document: DocumentNode, sizes: QuoteSizes): ComplexityEstimator {
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
    return rule ? rule(args, childComplexity, (fields) => selectsAny(node.selectionSet, fields, fragments), sizes) : childComplexity;
  };
}

/** Estimates kept per parsed document: the variables a document is polled with are few (its pages, its tenders). */
const ESTIMATES_PER_DOCUMENT = 64;
/** Longer keys (large variables) are estimated each time: a bound on what one client can make the process keep. */
const LONGEST_KEPT_KEY = 1024;
const estimates = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, number>>>();

/**
 * The rows an operation may read, its tenders' quote requests priced at `sizes`; throws (graphql-js's own error) when
 * its variables do not fit its definitions, and when it holds a field that runs at most once per operation
 * (`checkInsurer`) more than once. Kept per schema, parsed document (Apollo hands the same object for the same text),
 * operation, variables and sizes: a partner polling one page pays the walk of its document once, not on every
 * request. An estimate that throws is not kept.
 */
export function keptRowEstimate(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown>,
  sizes: QuoteSizes = QUOTE_SIZE_BOUNDS,
): number {
  const key = JSON.stringify([operationName ?? null, sizes.requestsPerTender, sizes.riskInformationRows, variables]);
  let ofSchema = estimates.get(schema);
  if (!ofSchema) estimates.set(schema, (ofSchema = new WeakMap()));
  const known = ofSchema.get(document);
  const kept = known?.get(key);
  if (kept !== undefined) return kept;
  const rows = getComplexity({ schema, query: document, operationName, variables, estimators: [rowEstimator(document, sizes)] });
  if (key.length <= LONGEST_KEPT_KEY) {
    if (known) setNewest(known, key, rows, ESTIMATES_PER_DOCUMENT);
    else ofSchema.set(document, new Map([[key, rows]]));
  }
  return rows;
}
