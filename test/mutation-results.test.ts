import {
  getNamedType,
  isLeafType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { beforeEach, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { gatewaySchema } from '../src/api/graphql/schema';
import { QuoteOption, QuoteRequest, QuoteRequestStatus, TrackedSubjectivity } from '../src/quotes';
import { storeOptions } from '../src/quotes/quote-answer-store';
import { SubjectivityStage } from '../src/quotes/quote-request-status';
import { newId } from '../src/platform/db/ids';
import { TenderHistoryEntry, TenderInvitation, TenderStatus } from '../src/tenders';
import { createTender } from './helpers/fixtures';
import { createClient, graphql, requestToken, graphqlData } from './helpers/gateway';
import { cyberQuestionSet } from './helpers/question-sets';
import { withGateway } from './helpers/scene';
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
  'publishQuestionSet',
  // A fresh link of the caller's own request: its URL, nothing read through the tender's visibility.
  'renewUnderwritingLink',
  'replayWebhookDeliveries',
  'retireQuestionSet',
  'rotateApiClientSecret',
  'rotateWebhookEndpointSecret',
  'setInsurerContacts',
  'setNotificationPreferences',
  'setInsurerRequirements',
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

let schema: GraphQLSchema;
let broker: string;
let internal: string;
let sims: SimulatedInsurers | undefined;

const scene = withGateway({ tender: true });

beforeEach(async () => {
  schema = await gatewaySchema();
  broker = await scene.token(Role.BROKER);
  internal = await scene.token(Role.INTERNAL);
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
      const { status, body } = await graphql(scene.gateway, token, query, variables);
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
    const manualToken = await requestToken(scene.gateway, await createClient(scene.gateway, Role.INSURER, { insurerId: manual }));
    sims = scene.closes(await startSimulatedInsurers(scene.gateway, [{ name: 'Anchor Insurance' }]));
    const anchor = sims.insurers[0];
    const anchorToken = await requestToken(scene.gateway, await createClient(scene.gateway, Role.INSURER, { insurerId: anchor.id }));
    const limits = [{ insuranceSum: 1_000_000, deductible: 10_000 }];

    await carriedOut(broker, 'requestQuotes', '(input: $requestInput)', {
      requestInput: { tenderId: scene.tender.id, insurerIds: [anchor.id, manual], limits, riskInformation: {} },
    });
    const requests = (await gql(broker, `query { quoteRequests(tenderId: "${scene.tender.id}") { id status insurer { id } } }`))
      .quoteRequests as { id: string; status: string; insurer: { id: string } }[];
    const manualRequest = requests.find((request) => request.insurer.id === manual)!;
    await carriedOut(manualToken, 'submitManualQuote', '(input: $manualInput)', {
      manualInput: { quoteRequestId: manualRequest.id, options: [{ ...limits[0], premium: 900 }] },
    });
    await carriedOut(
      manualToken,
      'postTenderMessage',
      `(input: { tenderId: "${scene.tender.id}", insurerId: "${manual}", text: "Which revenue?", requestsInformation: true })`,
    );
    await carriedOut(broker, 'startNegotiation', `(tenderId: "${scene.tender.id}")`);
    // Twice: a document's second use runs compiled by graphql-jit (jit-executor.ts), which must note it the same way.
    await carriedOut(broker, 'exportProposal', `(tenderId: "${scene.tender.id}", format: JSON)`);
    await carriedOut(broker, 'exportProposal', `(tenderId: "${scene.tender.id}", format: JSON)`);
    const anchorRequest = requests.find((request) => request.insurer.id === anchor.id)!;
    await carriedOut(
      anchorToken,
      'createDocumentUpload',
      `(input: { tenderId: "${scene.tender.id}", quoteRequestId: "${anchorRequest.id}", kind: QUOTE, filename: "slip.pdf", contentType: "application/pdf", size: 10, sha256: "${'0'.repeat(64)}" })`,
    );
    await waitFor('the API quote', async () => (await scene.gateway.em().count(QuoteOption, { quoteRequest: anchorRequest.id })) === 1);
    const option = await scene.gateway.em().findOneOrFail(QuoteOption, { quoteRequest: anchorRequest.id });
    await carriedOut(broker, 'orderCover', `(tenderId: "${scene.tender.id}", quoteOptionId: "${option.id}")`);
    await carriedOut(anchorToken, 'acceptCoverOrder', `(tenderId: "${scene.tender.id}", inceptionDate: "2027-01-01")`);
    await carriedOut(anchorToken, 'finaliseContract', `(tenderId: "${scene.tender.id}")`);
    await carriedOut(anchorToken, 'confirmPolicyDocumentation', `(tenderId: "${scene.tender.id}", policyNumber: "POL-1")`);
    // Renewals (issue 42): the terms by the insurer, the broker's decision, a renewal tender, notice before the deadline.
    await carriedOut(anchorToken, 'setRenewalTerms', `(tenderId: "${scene.tender.id}", type: TACIT, noticePeriodMonths: 1)`);
    await carriedOut(broker, 'recordRenewalDecision', `(tenderId: "${scene.tender.id}", decision: MOVE, reason: "terms")`);
    await carriedOut(broker, 'renewTender', `(tenderId: "${scene.tender.id}")`);
    await carriedOut(broker, 'notifyNonRenewal', `(tenderId: "${scene.tender.id}", reason: "moving")`);
    // The binding (issue 41): a subjectivity answered and decided, an order declined.
    const em = scene.gateway.em();
    const bound = await createTender(em, scene.world);
    const bindRequest = em.create(QuoteRequest, {
      tender: bound.id,
      insurer: anchor.id,
      status: QuoteRequestStatus.QUOTED,
      limits: [{ insurance_sum: 1_000_000, deductible: 10_000 }],
      riskInformation: {},
      requestedBy: 'fixture',
      quotedAt: new Date(),
    });
    em.create(TenderInvitation, { tender: bound.id, insurer: anchor.id, createdAt: new Date() });
    await em.flush();
    await storeOptions(em, { id: bindRequest.id, tenderId: bound.id, insurerId: anchor.id }, [
      {
        insurance_sum: 1_000_000,
        deductible: 10_000,
        premium: 800,
        subjectivities: [{ text: 'Signed application', stage: SubjectivityStage.PRE_BIND }],
      },
    ]);
    const bindOption = await em.findOneOrFail(QuoteOption, { quoteRequest: bindRequest.id });
    const [subjectivity] = await em.find(TrackedSubjectivity, { quoteOption: bindOption.id });
    await gql(broker, `mutation { orderCover(tenderId: "${bound.id}", quoteOptionId: "${bindOption.id}") { id } }`);
    await carriedOut(broker, 'respondToSubjectivity', `(input: { subjectivityId: "${subjectivity.id}", text: "Signed" })`);
    await carriedOut(anchorToken, 'decideSubjectivity', `(input: { subjectivityId: "${subjectivity.id}", decision: ACCEPT })`);
    await carriedOut(anchorToken, 'declineCoverOrder', `(tenderId: "${bound.id}", reason: "capacity")`);
    const other = await createTender(scene.gateway.em(), scene.world);
    await carriedOut(broker, 'closeTender', `(tenderId: "${other.id}", reason: "lost")`);
    await carriedOut(broker, 'reopenTender', `(tenderId: "${other.id}", reason: "back")`);
    await gql(internal, 'mutation($input: PublishQuestionSetInput!) { publishQuestionSet(input: $input) { changes { kind } } }', {
      input: { product: other.product, lineOfBusinessId: scene.world.lines.cyber.id, schema: cyberQuestionSet() },
    });
    await carriedOut(broker, 'saveRiskAnswers', `(tenderId: "${other.id}", answers: { employees: 3 }, expectedVersion: 0)`);
    await carriedOut(broker, 'createQuestionnaireLink', `(input: { tenderId: "${other.id}" })`);
    const [link] = (await gql(broker, `query { questionnaireLinks(tenderId: "${other.id}") { id } }`)).questionnaireLinks as {
      id: string;
    }[];
    await carriedOut(broker, 'revokeQuestionnaireLink', `(id: "${link.id}")`);

    // Every mutation is walked, or answers only what its caller owns: a new mutation must be placed in one of them.
    const all = Object.keys(mutationType.getFields()).sort();
    expect([...new Set([...walked, ...OWN_RESULTS])].sort()).toEqual(all);
  });
});

describe('a mutation whose payload cannot be completed after its change', () => {
  it('is answered 200 with RESULT_UNAVAILABLE on the payload, never as the failure of the change', async () => {
    // A small row budget and a tender history longer than the estimate assumes: the change is made, then reading
    // its history passes the budget (runtime counts what the estimate could only assume).
    await scene.restart({ GRAPHQL_MAX_ROWS: '100' });
    broker = await scene.token(Role.BROKER);
    await scene.gateway.em().insertMany(
      TenderHistoryEntry,
      Array.from({ length: 120 }, (_, index) => ({
        id: newId(),
        tender: scene.tender.id,
        at: new Date(Date.now() - (200 - index) * 1000),
        actor: 'seed',
        actorRole: Role.INTERNAL,
        toStatus: TenderStatus.QUOTES_AVAILABLE,
      })),
    );
    const { status, body } = await graphql(
      scene.gateway,
      broker,
      `mutation { a: startNegotiation(tenderId: "${scene.tender.id}") { id status history { at } } }`,
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
    const after = await gql(broker, `query { tender(id: "${scene.tender.id}") { status } }`);
    expect(after.tender.status).toBe('IN_NEGOTIATION');
  });
});

const gql = (token: string, query: string, variables?: Record<string, unknown>) => graphqlData(scene.gateway, token, query, variables);
