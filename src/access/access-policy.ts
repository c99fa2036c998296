import { Authorized } from 'type-graphql';
import { ROLES, Role } from './role';
import { assertRole, type Viewer } from './viewer';

const { INSURER, BROKER, INTERNAL, ANALYST } = Role;

/**
 * The one access policy (DESIGN 2): who may run each operation, whatever the transport. The GraphQL resolvers
 * (`@Allowed`), the services behind them, the tender transitions and the REST route table all read this table;
 * `test/access-policy.test.ts` drives every entry for every role over HTTP.
 */
export const OPERATIONS = {
  // GraphQL queries. Reading is open to every role; what each role sees is the scope and field rules below.
  me: ROLES,
  tender: ROLES,
  tenders: ROLES,
  linesOfBusiness: ROLES,
  insurers: ROLES,
  quoteRequests: ROLES,
  proposal: ROLES,
  tenderStatistics: [ANALYST, INTERNAL],
  /** Question sets are public within the exchange: every role reads them (docs/risk-assessment.md). */
  questionSet: ROLES,
  questionSets: ROLES,
  /** What an insurer prices on: insurers their own, brokers every insurer's (what to ask the customer), internal users. */
  insurerRequirements: [INSURER, BROKER, INTERNAL],
  // GraphQL mutations: the tender lifecycle (DESIGN 3) and the quotation flow
  createTender: [INTERNAL],
  requestQuotes: [BROKER, INTERNAL],
  startNegotiation: [BROKER, INTERNAL],
  orderCover: [BROKER, INTERNAL],
  closeTender: [BROKER, INTERNAL],
  reopenTender: [BROKER, INTERNAL],
  finaliseContract: [INSURER, INTERNAL],
  /** The insurer of the ordered option answers the order (docs/lifecycle.md, "Binding"); internal users on its behalf. */
  acceptCoverOrder: [INSURER, INTERNAL],
  declineCoverOrder: [INSURER, INTERNAL],
  /** The tender's broker responds to a subjectivity (internal users on its behalf)... */
  respondToSubjectivity: [BROKER, INTERNAL],
  /** ...and the quoting insurer (or an internal user) accepts, rejects or waives it. */
  decideSubjectivity: [INSURER, INTERNAL],
  /** A tender's subjectivities: its broker all, a quoting insurer its own, internal users; never analysts. */
  tenderSubjectivities: [INSURER, BROKER, INTERNAL],
  confirmPolicyDocumentation: [INSURER, INTERNAL],
  /** Renewals (docs/renewals.md): the terms by the tender's broker or its insurer (the awarded one), internal users... */
  setRenewalTerms: [INSURER, BROKER, INTERNAL],
  /** ...what is due, the renewal tender, the decision and the notice by the broker (its company's) and internal users only. */
  renewals: [BROKER, INTERNAL],
  renewTender: [BROKER, INTERNAL],
  recordRenewalDecision: [BROKER, INTERNAL],
  notifyNonRenewal: [BROKER, INTERNAL],
  /** A tender's documents (docs/documents.md): which kind each role may add is `mayAddDocument`. */
  createDocumentUpload: [INSURER, BROKER, INTERNAL],
  /**
   * Who read a tender's personal data (docs/privacy.md): the tender's broker and internal users (`sees.accessLog`).
   * Insurers pass this gate only to find NOT_FOUND (404), as for a tender they may not see; analysts, who read the
   * market's figures, not its parties' disclosures, are refused.
   */
  tenderAccessLog: [INSURER, BROKER, INTERNAL],
  /** Every client's reads, filtered by client and time. */
  accessLog: [INTERNAL],
  /** Everything held about a customer (GDPR art. 15 and 20). */
  customerDataExport: [INTERNAL],
  /** The comparison a broker showed its client (§61 VVG), stored as an ADVICE document: the tender's broker, internal users. */
  exportProposal: [BROKER, INTERNAL],
  /** The customer's risk answers: the tender's broker (passing on the customer's answers, or its own), internal users. */
  saveRiskAnswers: [BROKER, INTERNAL],
  /** The customer's questionnaire page (docs/people.md): links made, revoked and listed by the tender's broker, internal users. */
  createQuestionnaireLink: [BROKER, INTERNAL],
  revokeQuestionnaireLink: [BROKER, INTERNAL],
  questionnaireLinks: [BROKER, INTERNAL],
  /**
   * Clarification threads (docs/people.md): the tender's broker, the thread's insurer (its own thread, while the tender
   * is not redacted for it) and internal users; never analysts.
   */
  postTenderMessage: [INSURER, BROKER, INTERNAL],
  tenderMessages: [INSURER, BROKER, INTERNAL],
  /**
   * Mail preferences of an address (docs/people.md, "E-mail"): a broker for the persons of its company, an insurer
   * for its own contacts, internal users for anyone; never analysts.
   */
  setNotificationPreferences: [INSURER, BROKER, INTERNAL],
  notificationPreferences: [INSURER, BROKER, INTERNAL],
  // GraphQL mutations: operating the exchange
  createInsurer: [INTERNAL],
  publishQuestionSet: [INTERNAL],
  retireQuestionSet: [INTERNAL],
  /** An insurer's own client, at least 14 days ahead; internal users at any time. */
  setInsurerRequirements: [INSURER, INTERNAL],
  changeInsurerIntegration: [INTERNAL],
  /** Whom an insurer is mailed at: its own client, internal users. */
  setInsurerContacts: [INSURER, INTERNAL],
  /** An insurer without an API answers its own requests; internal users answer on its behalf. */
  submitManualQuote: [INSURER, INTERNAL],
  /** A fresh link to a MANUAL request's quote page (docs/people.md): the insurer's own client, internal users. */
  renewUnderwritingLink: [INSURER, INTERNAL],
  createApiClient: [INTERNAL],
  disableApiClient: [INTERNAL],
  enableApiClient: [INTERNAL],
  rotateApiClientSecret: [INTERNAL],
  /** The onboarding check: a real quote exchange with an insurer system on a test request. */
  checkInsurer: [INTERNAL],
  /** Erasure of a customer's personal data (GDPR art. 17, docs/privacy.md). */
  eraseCustomer: [INTERNAL],
  // Webhook endpoints: insurer and broker clients their own, internal users any client's
  webhookEndpoints: [INSURER, BROKER, INTERNAL],
  webhookEndpoint: [INSURER, BROKER, INTERNAL],
  webhookDeliveries: [INSURER, BROKER, INTERNAL],
  createWebhookEndpoint: [INSURER, BROKER, INTERNAL],
  updateWebhookEndpoint: [INSURER, BROKER, INTERNAL],
  rotateWebhookEndpointSecret: [INSURER, BROKER, INTERNAL],
  deleteWebhookEndpoint: [INSURER, BROKER, INTERNAL],
  replayWebhookDeliveries: [INSURER, BROKER, INTERNAL],
  // REST surfaces: the insurer API (/public/v1), the broker API (/api/v1), and the open list both share (read only)
  insurerApi: [INSURER, INTERNAL],
  brokerApi: [BROKER, INTERNAL],
  openTenders: [INSURER, BROKER, INTERNAL],
  /** An API client's own webhook endpoints over REST, /integration/v1 (internal users manage any client's through GraphQL). */
  clientWebhooks: [INSURER, BROKER],
  /** Spec 4.5: an insurer system says a quote is ready. */
  quoteCallback: [INSURER],
  /**
   * The schema, for every authenticated client: it is public anyway (schema.graphql, the OpenAPI document), and an
   * explorer without it gives a broker or insurer no completion and no docs. What a role may run stays as above.
   */
  introspection: [INSURER, BROKER, INTERNAL, ANALYST],
} as const satisfies Record<string, readonly Role[]>;

export type Operation = keyof typeof OPERATIONS;

export const rolesFor = (operation: Operation): readonly Role[] => OPERATIONS[operation];

export const may = (viewer: Viewer, operation: Operation): boolean => rolesFor(operation).includes(viewer.role);

export const assertMay = (viewer: Viewer, operation: Operation): void => assertRole(viewer, rolesFor(operation));

/** The resolver's decorator: the roles of `operation`, checked before the resolver runs (FORBIDDEN otherwise). */
export const Allowed = (operation: Operation): MethodDecorator & PropertyDecorator => Authorized(...rolesFor(operation));

/**
 * Whose records a viewer reads: internal users and analysts everyone's, a broker its company's, an insurer the
 * tenders it was invited to and its own quote requests and record.
 */
export type Scope = { kind: 'all' } | { kind: 'brokerCompany'; brokerCompanyId: string } | { kind: 'insurer'; insurerId: string };

export function scopeOf(viewer: Viewer): Scope {
  switch (viewer.role) {
    case INTERNAL:
    case ANALYST:
      return { kind: 'all' };
    case BROKER:
      return { kind: 'brokerCompany', brokerCompanyId: viewer.brokerCompanyId! };
    case INSURER:
      return { kind: 'insurer', insurerId: viewer.insurerId! };
  }
}

/** Field rules: what a viewer sees of what it may read. */
export const sees = {
  /** Who did it (history entries, quote requests): not insurers, who would learn a competitor's staff. */
  actors: (viewer: Viewer): boolean => viewer.role !== INSURER,
  /** Internal notes on quote requests (options dropped from an insurer's answer, and why). */
  internalNotes: (viewer: Viewer): boolean => viewer.role === INTERNAL,
  /**
   * An underwriter's reason for a decline or referral: the tender's broker, internal users, and the insurer that gave it
   * (an insurer reads only its own quote requests); not analysts.
   */
  underwriterReasons: (viewer: Viewer): boolean => viewer.role !== ANALYST,
  /** An insurer's mail contacts (personal data): internal users and that insurer. */
  insurerContacts: (viewer: Viewer, insurerId: string): boolean =>
    viewer.role === INTERNAL || (viewer.role === INSURER && viewer.insurerId === insurerId),
  /** Insurer integration details (the quote API URL). */
  integrationDetails: (viewer: Viewer): boolean => viewer.role === INTERNAL || viewer.role === ANALYST,
  /** A tender's access log: its broker (the tender's visibility decides which) and internal users; never insurers. */
  accessLog: (viewer: Viewer): boolean => viewer.role === BROKER || viewer.role === INTERNAL,
  /**
   * The advice a broker gave its client (ADVICE documents, their entries in the tender's history): the tender's broker
   * and internal users; not insurers, who would see their competitors' prices, nor analysts.
   */
  advice: (viewer: Viewer): boolean => viewer.role === BROKER || viewer.role === INTERNAL,
  /**
   * A tender's risk answers: all of them to its broker and internal users; to an invited insurer only those it
   * requires, and none once the tender is redacted for it (closed, or awarded to another); none to analysts.
   */
  riskAnswers: (viewer: Viewer): 'all' | 'required' | 'none' =>
    viewer.role === BROKER || viewer.role === INTERNAL ? 'all' : viewer.role === INSURER ? 'required' : 'none',
  // What an insurer sees of a tender it may read (data privacy, DESIGN 3) is the tender's audience rule: tenders/tender-audience.ts.
};

/**
 * Who acts as the winner of a tender (finalises the contract, confirms the policy documentation): its awarded
 * insurer, or an internal user.
 */
export const actsAsWinner = (viewer: Viewer, awardedInsurerId: string | null | undefined): boolean =>
  viewer.role === INTERNAL || (viewer.role === INSURER && awardedInsurerId === viewer.insurerId);

/** The kinds of a tender's document (docs/documents.md). */
type DocumentKindName = 'RISK' | 'QUOTE' | 'POLICY' | 'OTHER' | 'ADVICE';

/** What decides who sees a document: its tender as the viewer sees it (the tender's audience rule), and the document. */
export interface DocumentFacts {
  /** The tender's visibility to the viewer (tenders/tender-audience.ts): hidden, redacted (data privacy) or full. */
  tenderVisibility: 'hidden' | 'redacted' | 'full';
  tenderOpen: boolean;
  awardedInsurerId: string | null | undefined;
  kind: DocumentKindName;
  /** The insurer of the quote request a QUOTE document belongs to. */
  quoteInsurerId: string | null | undefined;
}

/**
 * Who sees a document, the one rule for lists, content, links, GraphQL and webhooks: whoever sees the tender in
 * full but an insurer sees every document; an insurer sees the risk file (RISK, OTHER) while the tender is open, its
 * own QUOTE documents, and the POLICY document only if it won. A tender redacted for an insurer (CLOSED, or won by
 * another) shows it none, its own quote documents included. ADVICE documents only the tender's broker and internal users.
 */
export function seesDocument(viewer: Viewer, document: DocumentFacts): boolean {
  if (document.tenderVisibility === 'hidden') return false;
  if (document.kind === 'ADVICE') return sees.advice(viewer);
  if (viewer.role !== INSURER) return true;
  if (document.tenderVisibility === 'redacted') return false;
  switch (document.kind) {
    case 'RISK':
    case 'OTHER':
      return document.tenderOpen;
    case 'QUOTE':
      return document.quoteInsurerId === viewer.insurerId;
    case 'POLICY':
      return document.awardedInsurerId === viewer.insurerId;
  }
}

/**
 * Who adds which kind: brokers (and internal users) the risk file, RISK and OTHER; the invited insurer QUOTE documents
 * for its own quote request and, once it won, the POLICY document; internal users any other kind. ADVICE documents
 * nobody uploads: the gateway makes them (exportProposal), so their bytes are the comparison it computed.
 */
export function mayAddDocument(viewer: Viewer, document: Omit<DocumentFacts, 'tenderVisibility' | 'tenderOpen'>): boolean {
  if (document.kind === 'ADVICE') return false;
  switch (viewer.role) {
    case INTERNAL:
      return true;
    case BROKER:
      return document.kind === 'RISK' || document.kind === 'OTHER';
    case INSURER:
      if (document.kind === 'QUOTE') return document.quoteInsurerId === viewer.insurerId;
      return document.kind === 'POLICY' && actsAsWinner(viewer, document.awardedInsurerId);
    case ANALYST:
      return false;
  }
}
