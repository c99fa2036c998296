import {
  getNamedType,
  isLeafType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { gatewaySchema } from '../src/api/graphql/schema';
import { QuoteOption } from '../src/quotes';
import { newId } from '../src/platform/db/ids';
import { TenderHistoryEntry, TenderStatus, type Tender } from '../src/tenders';
import { createTender, createWorld, type World } from './helpers/fixtures';
import { createClient, graphql, requestToken, startGateway, tokenFor, type Gateway } from './helpers/gateway';
import { startSimulatedInsurers, waitFor, type SimulatedInsurers } from './helpers/simulator';

/**
 * A mutation that has made its change is never answered as failed (issue 37): not with a 500 when its payload cannot be
 * completed (a non-null field resolving to null because the viewer no longer sees what it wrote), and not with another
 * field's error status when a later field of the same operation fails. The walk runs every mutation whose answer is read
 * back through what the viewer may see, as the party that runs it, with its whole payload selected, each followed in
 * its operation by a field that fails.
 */

/** Mutations that answer what the caller owns or just created (credentials, endpoints, insurers, reports): nothing is
 * read back through a tender's visibility, so no change of what the caller sees can empty them. */
const OWN_RESULTS = new Set([
  'changeInsurerIntegration',
  'checkInsurer',
  'createApiClient',
  'createInsurer',
  'createTender',
  'createWebhookEndpoint',
  'deleteWebhookEndpoint',
  'disableApiClient',
  'enableApiClient',
  'eraseCustomer',
  'replayWebhookDeliveries',
  'rotateApiClientSecret',
  'rotateWebhookEndpointSecret',
  'updateWebhookEndpoint',
]);

/** Every field without required arguments, objects to `depth` levels (the whole payload a client may ask for). */
function selectionOf(type: GraphQLObjectType, depth: number): string {
  const fields = Object.values(type.getFields()).filter(
    (field: GraphQLField<unknown, unknown>) => !field.args.some((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined),
  );
  const parts = fields.flatMap((field) => {
    const named = getNamedType(field.type);
    if (isLeafType(named)) return [field.name];
    if (isObjectType(named) && depth > 1) return [`${field.name} { ${selectionOf(named, depth - 1)} }`];
    return [];
  });
  return parts.length > 0 ? parts.join(' ') : '__typename';
}

let gateway: Gateway;
let world: World;
let tender: Tender;
let schema: GraphQLSchema;
let broker: string;
let internal: string;
let sims: SimulatedInsurers | undefined;

beforeEach(async () => {
  schema = await gatewaySchema();
  gateway = await startGateway();
  world = await createWorld(gateway.em());
  tender = await createTender(gateway.em(), world);
  broker = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
  internal = await tokenFor(gateway, Role.INTERNAL);
});

afterEach(async () => {
  await sims?.close();
  sims = undefined;
  await gateway.close();
});

describe('a mutation that made its change', () => {
  it('is answered 200 and named as carried out, with its whole payload, whatever fails after it in its operation', async () => {
    const mutationType = schema.getMutationType()!;
    const walked: string[] = [];

    /** `a` is the mutation; `b`, a field that fails (NOT_FOUND, or FORBIDDEN for a role that may not close tenders). */
    async function carriedOut(token: string, name: string, args: string, variables: Record<string, unknown> = {}) {
      walked.push(name);
      const field = mutationType.getFields()[name];
      const named = getNamedType(field.type);
      const selection = isObjectType(named) ? ` { ${selectionOf(named, 3)} }` : '';
      const declared =
        Object.keys(variables).length === 0
          ? ''
          : `(${Object.keys(variables)
              .map((v) => `$${v}: ${types[v]}`)
              .join(', ')})`;
      const query = `mutation${declared} { a: ${name}${args}${selection} b: closeTender(tenderId: "no-such-tender", reason: "x") { id } }`;
      const { status, body } = await graphql(gateway, token, query, variables);
      expect({ name, status, errors: body.errors.map((e: any) => [e.path, e.extensions.code]) }, JSON.stringify(body.errors)).toMatchObject(
        {
          name,
          status: 200,
          errors: [[['b'], expect.stringMatching(/^(NOT_FOUND|FORBIDDEN)$/)]],
        },
      );
      expect(body.extensions?.carriedOut, name).toEqual(['a']);
    }
    const types: Record<string, string> = { requestInput: 'RequestQuotesInput!', manualInput: 'SubmitManualQuoteInput!' };

    const manual = (await gql(internal, 'mutation { createInsurer(input: { name: "Paper Insurance", integration: MANUAL }) { id } }'))
      .createInsurer.id as string;
    const manualToken = await requestToken(gateway, await createClient(gateway, Role.INSURER, { insurerId: manual }));
    sims = await startSimulatedInsurers(gateway, [{ name: 'Anchor Insurance' }]);
    const anchor = sims.insurers[0];
    const anchorToken = await requestToken(gateway, await createClient(gateway, Role.INSURER, { insurerId: anchor.id }));
    const limits = [{ insuranceSum: 1_000_000, deductible: 10_000 }];

    await carriedOut(broker, 'requestQuotes', '(input: $requestInput)', {
      requestInput: { tenderId: tender.id, insurerIds: [anchor.id, manual], limits, riskInformation: {} },
    });
    const requests = (await gql(broker, `query { quoteRequests(tenderId: "${tender.id}") { id status insurer { id } } }`))
      .quoteRequests as { id: string; status: string; insurer: { id: string } }[];
    const manualRequest = requests.find((request) => request.insurer.id === manual)!;
    await carriedOut(manualToken, 'submitManualQuote', '(input: $manualInput)', {
      manualInput: { quoteRequestId: manualRequest.id, options: [{ ...limits[0], premium: 900 }] },
    });
    await carriedOut(broker, 'startNegotiation', `(tenderId: "${tender.id}")`);
    // Twice: a document's second use runs compiled by graphql-jit (jit-executor.ts), which must note it the same way.
    await carriedOut(broker, 'exportProposal', `(tenderId: "${tender.id}", format: JSON)`);
    await carriedOut(broker, 'exportProposal', `(tenderId: "${tender.id}", format: JSON)`);
    const anchorRequest = requests.find((request) => request.insurer.id === anchor.id)!;
    await carriedOut(
      anchorToken,
      'createDocumentUpload',
      `(input: { tenderId: "${tender.id}", quoteRequestId: "${anchorRequest.id}", kind: QUOTE, filename: "slip.pdf", contentType: "application/pdf", size: 10, sha256: "${'0'.repeat(64)}" })`,
    );
    await waitFor('the API quote', async () => (await gateway.em().count(QuoteOption, { quoteRequest: anchorRequest.id })) === 1);
    const option = await gateway.em().findOneOrFail(QuoteOption, { quoteRequest: anchorRequest.id });
    await carriedOut(broker, 'orderCover', `(tenderId: "${tender.id}", quoteOptionId: "${option.id}")`);
    await carriedOut(anchorToken, 'finaliseContract', `(tenderId: "${tender.id}")`);
    await carriedOut(anchorToken, 'confirmPolicyDocumentation', `(tenderId: "${tender.id}", policyNumber: "POL-1")`);
    const other = await createTender(gateway.em(), world);
    await carriedOut(broker, 'closeTender', `(tenderId: "${other.id}", reason: "lost")`);
    await carriedOut(broker, 'reopenTender', `(tenderId: "${other.id}", reason: "back")`);

    // Every mutation is walked, or answers only what its caller owns: a new mutation must be placed in one of them.
    const all = Object.keys(mutationType.getFields()).sort();
    expect([...new Set([...walked, ...OWN_RESULTS])].sort()).toEqual(all);
  });
});

describe('a mutation whose payload cannot be completed after its change', () => {
  it('is answered 200 with RESULT_UNAVAILABLE on the payload, never as the failure of the change', async () => {
    await gateway.close();
    // A small row budget and a tender history longer than the estimate assumes: the change is made, then reading
    // its history passes the budget (runtime counts what the estimate could only assume).
    gateway = await startGateway({ env: { GRAPHQL_MAX_ROWS: '100' } });
    world = await createWorld(gateway.em());
    tender = await createTender(gateway.em(), world);
    broker = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
    await gateway.em().insertMany(
      TenderHistoryEntry,
      Array.from({ length: 120 }, (_, index) => ({
        id: newId(),
        tender: tender.id,
        at: new Date(Date.now() - (200 - index) * 1000),
        actor: 'seed',
        actorRole: Role.INTERNAL,
        toStatus: TenderStatus.QUOTES_AVAILABLE,
      })),
    );
    const { status, body } = await graphql(
      gateway,
      broker,
      `mutation { a: startNegotiation(tenderId: "${tender.id}") { id status history { at } } }`,
    );
    expect([status, body.data, body.extensions]).toEqual([200, null, { carriedOut: ['a'] }]);
    expect(body.errors).toEqual([
      {
        message: expect.stringMatching(/^The change was made, but its result cannot be shown: The operation read more than 100 rows/),
        locations: expect.any(Array),
        path: ['a', 'history'],
        extensions: { code: 'RESULT_UNAVAILABLE', carriedOut: true },
      },
    ]);
    const after = await gql(broker, `query { tender(id: "${tender.id}") { status } }`);
    expect(after.tender.status).toBe('IN_NEGOTIATION');
  });
});

async function gql(token: string, query: string, variables: Record<string, unknown> = {}) {
  const { body } = await graphql(gateway, token, query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}
