import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, may, type Operation } from '../src/access/access-policy';
import { ROLES, Role } from '../src/access/role';
import type { Viewer } from '../src/access/viewer';
import { gatewaySchema } from '../src/api/graphql/schema';
import { createWorld } from './helpers/fixtures';
import { graphql, startGateway, tokenFor, type Gateway } from './helpers/gateway';

/**
 * The access policy's whole operation × role matrix, over HTTP. Each probe names things that do not exist (or
 * input that is refused), so a role the policy allows gets past every role check (decorator, service, transition,
 * route table) and stops at NOT_FOUND or BAD_USER_INPUT, changing nothing; every other role gets 403 FORBIDDEN.
 * A layer that checks other roles than the policy says fails here, whichever layer it is.
 */
type Probe = { graphql: string; variables?: Record<string, unknown> } | { method: 'GET' | 'POST'; path: string; body?: unknown };

const NO_TENDER = 'no-such-tender';
const gql = (query: string, variables?: Record<string, unknown>): Probe => ({ graphql: query, variables });

const PROBES: Record<Operation, Probe[]> = {
  me: [gql('{ me { appId } }')],
  tender: [gql(`{ tender(id: "${NO_TENDER}") { id } }`)],
  tenders: [gql('{ tenders(limit: 1) { count } }')],
  linesOfBusiness: [gql('{ linesOfBusiness { id } }')],
  insurers: [gql('{ insurers { id } }')],
  quoteRequests: [gql(`{ quoteRequests(tenderId: "${NO_TENDER}") { id } }`)],
  proposal: [gql(`{ proposal(tenderId: "${NO_TENDER}") { tenderId } }`)],
  tenderStatistics: [gql('{ tenderStatistics { from } }')],
  createTender: [
    gql('mutation($input: CreateTenderInput!) { createTender(input: $input) { id } }', {
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
    gql('mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }', {
      input: { tenderId: NO_TENDER, insurerIds: ['no-such-insurer'], limits: [{ insuranceSum: 1000, deductible: 0 }], riskInformation: {} },
    }),
  ],
  startNegotiation: [gql(`mutation { startNegotiation(tenderId: "${NO_TENDER}") { id } }`)],
  orderCover: [gql(`mutation { orderCover(tenderId: "${NO_TENDER}", quoteOptionId: "no-such-option") { id } }`)],
  closeTender: [gql(`mutation { closeTender(tenderId: "${NO_TENDER}", reason: "probe") { id } }`)],
  reopenTender: [gql(`mutation { reopenTender(tenderId: "${NO_TENDER}") { id } }`)],
  finaliseContract: [gql(`mutation { finaliseContract(tenderId: "${NO_TENDER}") { id } }`)],
  confirmPolicyDocumentation: [gql(`mutation { confirmPolicyDocumentation(tenderId: "${NO_TENDER}", policyNumber: "P-1") { id } }`)],
  createInsurer: [gql('mutation { createInsurer(input: { name: "", quoteApiUrl: "not a url" }) { id } }')],
  createApiClient: [gql('mutation { createApiClient(input: { role: INSURER }) { appId } }')],
  disableApiClient: [gql('mutation { disableApiClient(appId: "no-such-client") { appId } }')],
  enableApiClient: [gql('mutation { enableApiClient(appId: "no-such-client") { appId } }')],
  rotateApiClientSecret: [gql('mutation { rotateApiClientSecret(appId: "no-such-client") { appId } }')],
  // The REST surfaces as the specification lays them out: /public/v1 for insurers, /api/v1 for brokers.
  insurerApi: [
    ...['/public/v1/tenders', '/public/v1/tenders/successful', '/public/v1/tenders/closed'].map((path) => ({ method: 'GET' as const, path })),
    { method: 'GET', path: `/public/v1/tenders/${NO_TENDER}` },
    { method: 'POST', path: `/public/v1/tenders/${NO_TENDER}/policy-documentation`, body: { policy_number: 'P-1' } },
  ],
  brokerApi: [
    ...['/api/v1/tenders', '/api/v1/tenders/open', '/api/v1/tenders/successful', '/api/v1/tenders/closed'].map((path) => ({ method: 'GET' as const, path })),
    { method: 'GET', path: `/api/v1/tenders/${NO_TENDER}` },
  ],
  openTenders: [{ method: 'GET', path: '/public/v1/tenders/open' }],
  quoteCallback: [{ method: 'POST', path: '/aggregation-gateway/v1/public/producer-integration/quotes/available', body: { quote_request_id: 'no-such-request' } }],
  introspection: [gql('{ __schema { queryType { name } } }')],
};

let gateway: Gateway;
const tokens = {} as Record<Role, string>;

beforeAll(async () => {
  gateway = await startGateway();
  const world = await createWorld(gateway.em());
  tokens[Role.INSURER] = await tokenFor(gateway, Role.INSURER, { insurerId: world.insurers[0].id });
  tokens[Role.BROKER] = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
  tokens[Role.INTERNAL] = await tokenFor(gateway, Role.INTERNAL);
  tokens[Role.ANALYST] = await tokenFor(gateway, Role.ANALYST);
});
afterAll(() => gateway?.close());

/** The outcome a caller sees: the HTTP status and the error code, whichever transport. */
async function send(probe: Probe, token: string): Promise<{ status: number; code: string | undefined }> {
  if ('graphql' in probe) {
    const { status, body } = await graphql(gateway, token, probe.graphql, probe.variables);
    return { status, code: body.errors?.[0]?.extensions?.code };
  }
  const response = await fetch(`${gateway.url}${probe.path}`, {
    method: probe.method,
    headers: { authorization: `Bearer ${token}`, ...(probe.body ? { 'content-type': 'application/json' } : {}) },
    body: probe.body ? JSON.stringify(probe.body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, code: response.ok ? undefined : JSON.parse(text).code };
}

const matrix = (Object.keys(OPERATIONS) as Operation[]).flatMap((operation) => ROLES.map((role) => ({ operation, role })));

describe('the access policy, operation by role, over HTTP', () => {
  it.each(matrix)('$operation for $role: as the policy says (allowed past every role check, or 403 FORBIDDEN)', async ({ operation, role }) => {
    const allowed = may({ role } as Viewer, operation);
    for (const probe of PROBES[operation]) {
      const { status, code } = await send(probe, tokens[role]);
      const where = 'graphql' in probe ? probe.graphql : `${probe.method} ${probe.path}`;
      if (allowed) {
        expect(code, where).not.toBe('FORBIDDEN');
        expect(status, where).toBeLessThan(500);
      } else {
        expect({ status, code }, where).toEqual({ status: 403, code: 'FORBIDDEN' });
      }
    }
  });

  it('has an entry for every query and mutation of the schema', async () => {
    const schema = await gatewaySchema();
    const rootFields = [schema.getQueryType(), schema.getMutationType()].flatMap((type) => Object.keys(type?.getFields() ?? {}));
    expect(rootFields.filter((field) => !(field in OPERATIONS))).toEqual([]);
  });
});
