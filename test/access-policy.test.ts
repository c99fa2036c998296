import { beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, may, type Operation } from '../src/access/access-policy';
import { ROLES, Role, type Viewer } from '../src/access';
import { gatewaySchema } from '../src/api/graphql/schema';
import { graphql } from './helpers/gateway';
import { withGateway } from './helpers/scene';

/**
 * The operation × role matrix over HTTP, against the roles the specification and DESIGN give each operation
 * (below, written out, not read from the policy): a wrong entry in the policy, or a decorator, service,
 * transition or route that checks other roles, fails here. Each probe names things that do not exist (or input
 * that is refused), so an allowed role gets past every role check and stops at the outcome the probe names,
 * changing nothing; every other role gets 403 FORBIDDEN.
 */
const { INSURER, BROKER, INTERNAL, ANALYST } = Role;
const EVERYONE = [INSURER, BROKER, INTERNAL, ANALYST];
const SPECIFIED: Record<Operation, readonly Role[]> = {
  me: EVERYONE,
  tender: EVERYONE,
  tenders: EVERYONE,
  linesOfBusiness: EVERYONE,
  insurers: EVERYONE,
  quoteRequests: EVERYONE,
  proposal: EVERYONE,
  tenderStatistics: [ANALYST, INTERNAL],
  questionSet: EVERYONE,
  questionSets: EVERYONE,
  insurerRequirements: [INSURER, BROKER, INTERNAL],
  saveRiskAnswers: [BROKER, INTERNAL],
  createQuestionnaireLink: [BROKER, INTERNAL],
  revokeQuestionnaireLink: [BROKER, INTERNAL],
  questionnaireLinks: [BROKER, INTERNAL],
  postTenderMessage: [INSURER, BROKER, INTERNAL],
  tenderMessages: [INSURER, BROKER, INTERNAL],
  setNotificationPreferences: [INSURER, BROKER, INTERNAL],
  notificationPreferences: [INSURER, BROKER, INTERNAL],
  publishQuestionSet: [INTERNAL],
  retireQuestionSet: [INTERNAL],
  setInsurerRequirements: [INSURER, INTERNAL],
  createTender: [INTERNAL],
  requestQuotes: [BROKER, INTERNAL],
  startNegotiation: [BROKER, INTERNAL],
  orderCover: [BROKER, INTERNAL],
  closeTender: [BROKER, INTERNAL],
  reopenTender: [BROKER, INTERNAL],
  finaliseContract: [INSURER, INTERNAL],
  confirmPolicyDocumentation: [INSURER, INTERNAL],
  // Renewals (issue 42): the terms by the tender's broker or insurer; the rest by the broker side only.
  setRenewalTerms: [INSURER, BROKER, INTERNAL],
  renewals: [BROKER, INTERNAL],
  renewTender: [BROKER, INTERNAL],
  recordRenewalDecision: [BROKER, INTERNAL],
  notifyNonRenewal: [BROKER, INTERNAL],
  // Issue 41: the insurer of the ordered option answers the order; the broker responds, the quoting insurer decides.
  acceptCoverOrder: [INSURER, INTERNAL],
  declineCoverOrder: [INSURER, INTERNAL],
  respondToSubjectivity: [BROKER, INTERNAL],
  decideSubjectivity: [INSURER, INTERNAL],
  tenderSubjectivities: [INSURER, BROKER, INTERNAL],
  createDocumentUpload: [INSURER, BROKER, INTERNAL],
  // Insurers pass the role check and find nothing (404): they never read an access log (docs/privacy.md).
  tenderAccessLog: [INSURER, BROKER, INTERNAL],
  accessLog: [INTERNAL],
  customerDataExport: [INTERNAL],
  exportProposal: [BROKER, INTERNAL],
  createInsurer: [INTERNAL],
  changeInsurerIntegration: [INTERNAL],
  setInsurerContacts: [INSURER, INTERNAL],
  submitManualQuote: [INSURER, INTERNAL],
  renewUnderwritingLink: [INSURER, INTERNAL],
  createApiClient: [INTERNAL],
  disableApiClient: [INTERNAL],
  enableApiClient: [INTERNAL],
  rotateApiClientSecret: [INTERNAL],
  checkInsurer: [INTERNAL],
  eraseCustomer: [INTERNAL],
  webhookEndpoints: [INSURER, BROKER, INTERNAL],
  webhookEndpoint: [INSURER, BROKER, INTERNAL],
  webhookDeliveries: [INSURER, BROKER, INTERNAL],
  createWebhookEndpoint: [INSURER, BROKER, INTERNAL],
  updateWebhookEndpoint: [INSURER, BROKER, INTERNAL],
  rotateWebhookEndpointSecret: [INSURER, BROKER, INTERNAL],
  deleteWebhookEndpoint: [INSURER, BROKER, INTERNAL],
  replayWebhookDeliveries: [INSURER, BROKER, INTERNAL],
  insurerApi: [INSURER, INTERNAL],
  brokerApi: [BROKER, INTERNAL],
  openTenders: [INSURER, BROKER, INTERNAL],
  clientWebhooks: [INSURER, BROKER],
  quoteCallback: [INSURER],
  introspection: [INSURER, BROKER, INTERNAL, ANALYST],
};

/** What an allowed role gets: an answer (OK), or the error code past the role checks. */
type Outcome = 'OK' | 'NOT_FOUND' | 'BAD_USER_INPUT';
type Probe = (
  { graphql: string; variables?: Record<string, unknown> } | { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; path: string; body?: unknown }
) & { allowed: Outcome | Outcome[] };

const NO_TENDER = 'no-such-tender';
const gql = (query: string, allowed: Outcome | Outcome[], variables?: Record<string, unknown>): Probe => ({
  graphql: query,
  variables,
  allowed,
});
const rest = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, allowed: Outcome, body?: unknown): Probe => ({
  method,
  path,
  allowed,
  body,
});

const PROBES: Record<Operation, Probe[]> = {
  me: [gql('{ me { appId } }', 'OK')],
  tender: [gql(`{ tender(id: "${NO_TENDER}") { id } }`, 'NOT_FOUND')],
  tenders: [gql('{ tenders(limit: 1) { count } }', 'OK')],
  linesOfBusiness: [gql('{ linesOfBusiness { id } }', 'OK')],
  insurers: [gql('{ insurers { id } }', 'OK')],
  quoteRequests: [gql(`{ quoteRequests(tenderId: "${NO_TENDER}") { id } }`, 'NOT_FOUND')],
  proposal: [gql(`{ proposal(tenderId: "${NO_TENDER}") { tenderId } }`, 'NOT_FOUND')],
  tenderStatistics: [gql('{ tenderStatistics { from } }', 'OK')],
  questionSet: [gql('{ questionSet(product: "No such product") { version } }', 'NOT_FOUND')],
  questionSets: [gql('{ questionSets(product: "No such product") { version } }', 'OK')],
  insurerRequirements: [
    gql('{ insurerRequirements(insurerId: "no-such-insurer", product: "No such product") { scheduled { product } } }', 'NOT_FOUND'),
  ],
  saveRiskAnswers: [
    gql(`mutation { saveRiskAnswers(tenderId: "${NO_TENDER}", answers: {}, expectedVersion: 0) { version } }`, 'NOT_FOUND'),
    rest('PUT', `/integration/v1/tenders/${NO_TENDER}/risk-assessment`, 'NOT_FOUND', { answers: {}, expected_version: 0 }),
  ],
  postTenderMessage: [
    gql(
      `mutation { postTenderMessage(input: { tenderId: "${NO_TENDER}", insurerId: "no-such-insurer", text: "Probe" }) { id } }`,
      'NOT_FOUND',
    ),
  ],
  tenderMessages: [gql(`{ tenderMessages(tenderId: "${NO_TENDER}") { id } }`, 'NOT_FOUND')],
  createQuestionnaireLink: [gql(`mutation { createQuestionnaireLink(input: { tenderId: "${NO_TENDER}" }) { id } }`, 'NOT_FOUND')],
  revokeQuestionnaireLink: [gql('mutation { revokeQuestionnaireLink(id: "no-such-link") { id } }', 'NOT_FOUND')],
  questionnaireLinks: [gql(`{ questionnaireLinks(tenderId: "${NO_TENDER}") { id } }`, 'NOT_FOUND')],
  setNotificationPreferences: [
    gql(
      'mutation { setNotificationPreferences(input: { email: "not an address", events: [], delivery: IMMEDIATE }) { email } }',
      'BAD_USER_INPUT',
    ),
  ],
  notificationPreferences: [gql('{ notificationPreferences(email: "not an address") { email } }', 'BAD_USER_INPUT')],
  publishQuestionSet: [
    gql(
      'mutation { publishQuestionSet(input: { product: "Probe", lineOfBusinessId: "no-such-line", schema: { type: "string" } }) { changes { kind } } }',
      'BAD_USER_INPUT',
    ),
  ],
  retireQuestionSet: [gql('mutation { retireQuestionSet(product: "No such product", version: 1) { version } }', 'NOT_FOUND')],
  setInsurerRequirements: [
    gql(
      'mutation { setInsurerRequirements(insurerId: "no-such-insurer", product: "No such product", questionPointers: ["/x"], effectiveFrom: "2027-01-01T00:00:00Z") { scheduled { product } } }',
      'NOT_FOUND',
    ),
  ],
  createTender: [
    gql('mutation($input: CreateTenderInput!) { createTender(input: $input) { id } }', 'BAD_USER_INPUT', {
      input: {
        product: 'Cyber',
        lineOfBusinessId: 'no-such-line',
        brokerCompanyId: 'no-such-broker',
        customer: { companyId: 'C-1', name: 'Kunde', address: { street: 'Ring', houseNumber: '1', zip: '1', city: 'X', country: 'DE' } },
        submitter: { accountId: 'A-1', email: 'a@b.example', firstName: 'A', lastName: 'B', salutation: 'Ms' },
        taxRate: 0.19,
      },
    }),
  ],
  requestQuotes: [
    gql('mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }', 'NOT_FOUND', {
      input: { tenderId: NO_TENDER, insurerIds: ['no-such-insurer'], limits: [{ insuranceSum: 1000, deductible: 0 }], riskInformation: {} },
    }),
  ],
  startNegotiation: [gql(`mutation { startNegotiation(tenderId: "${NO_TENDER}") { id } }`, 'NOT_FOUND')],
  orderCover: [gql(`mutation { orderCover(tenderId: "${NO_TENDER}", quoteOptionId: "no-such-option") { id } }`, 'NOT_FOUND')],
  closeTender: [gql(`mutation { closeTender(tenderId: "${NO_TENDER}", reason: "probe") { id } }`, 'NOT_FOUND')],
  reopenTender: [gql(`mutation { reopenTender(tenderId: "${NO_TENDER}") { id } }`, 'NOT_FOUND')],
  finaliseContract: [gql(`mutation { finaliseContract(tenderId: "${NO_TENDER}") { id } }`, 'NOT_FOUND')],
  acceptCoverOrder: [
    gql(`mutation { acceptCoverOrder(tenderId: "${NO_TENDER}", inceptionDate: "2027-01-01") { id } }`, 'NOT_FOUND'),
    rest('POST', `/integration/v1/tenders/${NO_TENDER}/cover-order/decision`, 'NOT_FOUND', {
      decision: 'ACCEPT',
      inception_date: '2027-01-01',
    }),
  ],
  declineCoverOrder: [gql(`mutation { declineCoverOrder(tenderId: "${NO_TENDER}", reason: "probe") { id } }`, 'NOT_FOUND')],
  respondToSubjectivity: [
    gql('mutation { respondToSubjectivity(input: { subjectivityId: "no-such-subjectivity", text: "Probe" }) { id } }', 'NOT_FOUND'),
  ],
  decideSubjectivity: [
    gql('mutation { decideSubjectivity(input: { subjectivityId: "no-such-subjectivity", decision: ACCEPT }) { id } }', 'NOT_FOUND'),
    rest('POST', '/integration/v1/subjectivities/no-such-subjectivity/decision', 'NOT_FOUND', { decision: 'ACCEPT' }),
  ],
  tenderSubjectivities: [gql(`{ tenderSubjectivities(tenderId: "${NO_TENDER}") { id } }`, 'NOT_FOUND')],
  setRenewalTerms: [gql(`mutation { setRenewalTerms(tenderId: "${NO_TENDER}", type: TACIT, noticePeriodMonths: 3) { id } }`, 'NOT_FOUND')],
  renewals: [gql('{ renewals(dueBefore: "2026-01-01T00:00:00Z") { status } }', 'OK')],
  renewTender: [gql(`mutation { renewTender(tenderId: "${NO_TENDER}") { id } }`, 'NOT_FOUND')],
  recordRenewalDecision: [
    gql(`mutation { recordRenewalDecision(tenderId: "${NO_TENDER}", decision: MOVE, reason: "Probe") { status } }`, 'NOT_FOUND'),
  ],
  notifyNonRenewal: [gql(`mutation { notifyNonRenewal(tenderId: "${NO_TENDER}", reason: "Probe") { status } }`, 'NOT_FOUND')],
  confirmPolicyDocumentation: [
    gql(`mutation { confirmPolicyDocumentation(tenderId: "${NO_TENDER}", policyNumber: "P-1") { id } }`, 'NOT_FOUND'),
    rest('POST', `/integration/v1/tenders/${NO_TENDER}/policy-documentation`, 'NOT_FOUND', { policy_number: 'P-1' }),
  ],
  createDocumentUpload: [
    gql(
      `mutation { createDocumentUpload(input: { tenderId: "${NO_TENDER}", kind: RISK, filename: "risk.pdf", contentType: "application/pdf", size: 10, sha256: "${'0'.repeat(64)}" }) { uploadUrl } }`,
      'NOT_FOUND',
    ),
  ],
  tenderAccessLog: [
    gql(`{ tenderAccessLog(tenderId: "${NO_TENDER}") { count } }`, 'NOT_FOUND'),
    rest('GET', `/api/v1/tenders/${NO_TENDER}/access-log`, 'NOT_FOUND'),
  ],
  accessLog: [gql('{ accessLog(filter: { clientId: "no-such-client" }) { count } }', 'OK')],
  customerDataExport: [gql('{ customerDataExport(customerId: "no-such-customer") }', 'NOT_FOUND')],
  exportProposal: [gql(`mutation { exportProposal(tenderId: "${NO_TENDER}", format: PDF) { sha256 } }`, 'NOT_FOUND')],
  createInsurer: [gql('mutation { createInsurer(input: { name: "", quoteApiUrl: "not a url" }) { id } }', 'BAD_USER_INPUT')],
  changeInsurerIntegration: [
    gql('mutation { changeInsurerIntegration(input: { insurerId: "no-such-insurer", integration: MANUAL }) { id } }', 'NOT_FOUND'),
  ],
  setInsurerContacts: [gql('mutation { setInsurerContacts(insurerId: "no-such-insurer", contacts: []) { id } }', 'NOT_FOUND')],
  submitManualQuote: [gql('mutation { submitManualQuote(input: { quoteRequestId: "no-such-request", options: [] }) { id } }', 'NOT_FOUND')],
  renewUnderwritingLink: [gql('mutation { renewUnderwritingLink(quoteRequestId: "no-such-request") { url } }', 'NOT_FOUND')],
  createApiClient: [gql('mutation { createApiClient(input: { role: INSURER }) { appId } }', 'BAD_USER_INPUT')],
  disableApiClient: [gql('mutation { disableApiClient(appId: "no-such-client") { appId } }', 'NOT_FOUND')],
  enableApiClient: [gql('mutation { enableApiClient(appId: "no-such-client") { appId } }', 'NOT_FOUND')],
  rotateApiClientSecret: [gql('mutation { rotateApiClientSecret(appId: "no-such-client") { appId } }', 'NOT_FOUND')],
  checkInsurer: [gql('mutation { checkInsurer(insurerId: "no-such-insurer", waitMs: 100) { passed } }', 'NOT_FOUND')],
  eraseCustomer: [gql('mutation { eraseCustomer(customerId: "no-such-customer", reason: "probe") { alreadyErased } }', 'NOT_FOUND')],
  // Internal users name the client (an unknown one is NOT_FOUND); insurers and brokers read their own.
  webhookEndpoints: [gql('{ webhookEndpoints(appId: "no-such-client") { id } }', ['OK', 'NOT_FOUND'])],
  webhookEndpoint: [gql('{ webhookEndpoint(id: "no-such-endpoint") { id } }', 'NOT_FOUND')],
  webhookDeliveries: [gql('{ webhookDeliveries(endpointId: "no-such-endpoint") { count } }', 'NOT_FOUND')],
  createWebhookEndpoint: [
    // Insurers and brokers: the URL is refused; internal users: the client named does not exist.
    gql(
      'mutation { createWebhookEndpoint(input: { appId: "no-such-client", url: "not a url", eventTypes: [TENDER_INVITED] }) { secret } }',
      ['BAD_USER_INPUT', 'NOT_FOUND'],
    ),
  ],
  updateWebhookEndpoint: [gql('mutation { updateWebhookEndpoint(id: "no-such-endpoint", input: { enabled: false }) { id } }', 'NOT_FOUND')],
  rotateWebhookEndpointSecret: [gql('mutation { rotateWebhookEndpointSecret(id: "no-such-endpoint") { secret } }', 'NOT_FOUND')],
  deleteWebhookEndpoint: [gql('mutation { deleteWebhookEndpoint(id: "no-such-endpoint") }', 'NOT_FOUND')],
  replayWebhookDeliveries: [
    gql('mutation { replayWebhookDeliveries(endpointId: "no-such-endpoint", since: "2026-01-01T00:00:00Z") }', 'NOT_FOUND'),
  ],
  // The REST read surfaces as the specification lays them out: /public/v1 for insurers, /api/v1 for brokers.
  insurerApi: [
    ...['/public/v1/tenders', '/public/v1/tenders/successful', '/public/v1/tenders/closed'].map((path) => rest('GET', path, 'OK')),
    rest('GET', `/public/v1/tenders/${NO_TENDER}`, 'NOT_FOUND'),
    rest('GET', `/public/v1/tenders/${NO_TENDER}/risk-assessment`, 'NOT_FOUND'),
    rest('GET', `/public/v1/tenders/${NO_TENDER}/messages`, 'NOT_FOUND'),
    rest('GET', `/public/v1/tenders/${NO_TENDER}/subjectivities`, 'NOT_FOUND'),
    rest('GET', '/public/v1/question-sets', 'OK'),
    rest('GET', '/public/v1/question-sets/No%20such%20product/latest', 'NOT_FOUND'),
  ],
  brokerApi: [
    ...['/api/v1/tenders', '/api/v1/tenders/open', '/api/v1/tenders/successful', '/api/v1/tenders/closed'].map((path) =>
      rest('GET', path, 'OK'),
    ),
    rest('GET', `/api/v1/tenders/${NO_TENDER}`, 'NOT_FOUND'),
    rest('GET', `/api/v1/tenders/${NO_TENDER}/risk-assessment`, 'NOT_FOUND'),
    rest('GET', `/api/v1/tenders/${NO_TENDER}/messages`, 'NOT_FOUND'),
    rest('GET', `/api/v1/tenders/${NO_TENDER}/subjectivities`, 'NOT_FOUND'),
    rest('GET', '/api/v1/question-sets', 'OK'),
    rest('GET', '/api/v1/question-sets/No%20such%20product/1', 'NOT_FOUND'),
    rest('GET', '/api/v1/renewals?due_before=2026-01-01T00:00:00Z', 'OK'),
  ],
  openTenders: [rest('GET', '/public/v1/tenders/open', 'OK')],
  // The integration API: insurer and broker clients their own endpoints (internal users name the client in GraphQL).
  clientWebhooks: [
    rest('GET', '/integration/v1/webhook-endpoints', 'OK'),
    rest('GET', '/integration/v1/webhook-endpoints/no-such-endpoint', 'NOT_FOUND'),
    rest('DELETE', '/integration/v1/webhook-endpoints/no-such-endpoint', 'NOT_FOUND'),
  ],
  quoteCallback: [
    rest('POST', '/aggregation-gateway/v1/public/producer-integration/quotes/available', 'NOT_FOUND', {
      quote_request_id: 'no-such-request',
    }),
  ],
  introspection: [gql('{ __schema { queryType { name } } }', 'OK')],
};

const tokens = {} as Record<Role, string>;

const scene = withGateway({ per: 'file', world: true });

beforeAll(async () => {
  tokens[Role.INSURER] = await scene.token(Role.INSURER);
  tokens[Role.BROKER] = await scene.token(Role.BROKER);
  tokens[Role.INTERNAL] = await scene.token(Role.INTERNAL);
  tokens[Role.ANALYST] = await scene.token(Role.ANALYST);
});
/** The outcome a caller sees: the HTTP status and the error code (OK without one), whichever transport. */
async function send(probe: Probe, token: string): Promise<{ status: number; code: string }> {
  if ('graphql' in probe) {
    const { status, body } = await graphql(scene.gateway, token, probe.graphql, probe.variables);
    return { status, code: body.errors?.[0]?.extensions?.code ?? 'OK' };
  }
  const response = await fetch(`${scene.gateway.url}${probe.path}`, {
    method: probe.method,
    headers: { authorization: `Bearer ${token}`, ...(probe.body ? { 'content-type': 'application/json' } : {}) },
    body: probe.body ? JSON.stringify(probe.body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, code: response.ok ? 'OK' : JSON.parse(text).code };
}

const matrix = (Object.keys(SPECIFIED) as Operation[]).flatMap((operation) => ROLES.map((role) => ({ operation, role })));

describe('the access policy, operation by role, over HTTP', () => {
  it.each(matrix)(
    '$operation for $role: answered past every role check if the specification allows it, else 403 FORBIDDEN',
    async ({ operation, role }) => {
      const allowed = SPECIFIED[operation].includes(role);
      expect(may({ role } as Viewer, operation), 'the policy').toBe(allowed);
      for (const probe of PROBES[operation]) {
        const { status, code } = await send(probe, tokens[role]);
        const where = 'graphql' in probe ? probe.graphql : `${probe.method} ${probe.path}`;
        if (allowed) expect([probe.allowed].flat(), where).toContain(code);
        else expect({ status, code }, where).toEqual({ status: 403, code: 'FORBIDDEN' });
      }
    },
  );

  it('covers every operation of the policy', () => {
    expect(Object.keys(OPERATIONS).sort()).toEqual(Object.keys(SPECIFIED).sort());
  });

  it('has an entry for every query and mutation of the schema', async () => {
    const schema = await gatewaySchema();
    const rootFields = [schema.getQueryType(), schema.getMutationType()].flatMap((type) => Object.keys(type?.getFields() ?? {}));
    expect(rootFields.filter((field) => !(field in OPERATIONS))).toEqual([]);
  });
});
