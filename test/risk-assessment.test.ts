import { describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { DEMO_QUESTION_SETS, demoAnswers, demoRequirements } from '../src/seed/demo-question-sets';
import { LineOfBusiness } from '../src/tenders';
import { createTender } from './helpers/fixtures';
import { graphql } from './helpers/gateway';
import { cyberAnswers, cyberQuestionSet } from './helpers/question-sets';
import { withGateway } from './helpers/scene';
import { startSimulatedInsurers, waitFor } from './helpers/simulator';
import { startWebhookReceiver } from './helpers/webhook-receiver';

/** Issue 39: question sets, insurers' requirements and a tender's risk assessment, end to end over GraphQL. */
/** The gateway's clock: the real time, moved on by `ahead` (requirements take effect by it; no test sleeps). */
let ahead = 0;
const now = () => new Date(Date.now() + ahead);
const scene = withGateway({ per: 'file', world: true, webhooks: 'fast', clock: now });

const PUBLISH = `mutation($input: PublishQuestionSetInput!) {
  publishQuestionSet(input: $input) {
    questionSet { product version digest lineOfBusinessId }
    changes { pointer kind breaking description }
    affectedTenderIds affectedInsurerIds
  } }`;
const SAVE = `mutation($tenderId: ID!, $answers: JSONObject!, $expectedVersion: Int!, $submit: Boolean, $source: AnswerSource) {
  saveRiskAnswers(tenderId: $tenderId, answers: $answers, expectedVersion: $expectedVersion, submit: $submit, source: $source) {
    status version questionSet { product version } answers sources { pointer source by }
  } }`;
const ASSESSMENT = `query($id: ID!, $insurerId: ID!) {
  tender(id: $id) { riskAssessment { status version answers sources { pointer source by } questionSet { version } missing(insurerId: $insurerId) } } }`;
const REQUIREMENTS = `mutation($insurerId: ID!, $product: String!, $pointers: [String!]!, $from: DateTimeISO!) {
  setInsurerRequirements(insurerId: $insurerId, product: $product, questionPointers: $pointers, effectiveFrom: $from) {
    current { questionPointers } scheduled { questionPointers effectiveFrom } } }`;
const REQUEST_QUOTES = `mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id status insurer { id } } }`;

let products = 0;
/** A product of its own per test, so that the file's one gateway serves every test. */
const newProduct = () => `Cyber Test ${++products}`;
const past = new Date(Date.now() - 24 * 3600_000).toISOString();

async function publish(internal: string, product: string, schema = cyberQuestionSet(), acknowledgeBreaking?: boolean) {
  return graphql(scene.gateway, internal, PUBLISH, {
    input: { product, lineOfBusinessId: scene.world.lines.cyber.id, schema, acknowledgeBreaking },
  });
}

async function tenderOf(product: string) {
  return createTender(scene.em(), scene.world, { product, invited: [] });
}

describe('question sets', () => {
  it('are published as immutable versions, each the one before plus one, readable by every role', async () => {
    const internal = await scene.token(Role.INTERNAL);
    const product = newProduct();
    const first = await publish(internal, product);
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data.publishQuestionSet.questionSet).toMatchObject({ product, version: 1 });
    expect(first.body.data.publishQuestionSet.changes).toEqual([]);
    const widened = cyberQuestionSet() as { properties: Record<string, Record<string, unknown>> };
    widened.properties.employees.maximum = 10_000_000;
    const second = await publish(internal, product, widened);
    expect(second.body.errors).toBeUndefined();
    expect(second.body.data.publishQuestionSet.questionSet.version).toBe(2);
    expect(second.body.data.publishQuestionSet.changes).toEqual([expect.objectContaining({ pointer: '/employees', breaking: false })]);
    for (const role of [Role.INSURER, Role.BROKER, Role.ANALYST]) {
      const { body } = await graphql(
        scene.gateway,
        await scene.token(role),
        `
          query ($p: String!) {
            v1: questionSet(product: $p, version: 1) {
              schema
            }
            latest: questionSet(product: $p) {
              version
            }
            all: questionSets(product: $p) {
              version
            }
          }
        `,
        { p: product },
      );
      expect(body.errors, role).toBeUndefined();
      expect(body.data.v1.schema).toEqual(cyberQuestionSet());
      expect(body.data.latest.version).toBe(2);
      expect(body.data.all.map((set: { version: number }) => set.version)).toEqual([2, 1]);
    }
  });

  it('refuses a breaking change with BREAKING_CHANGE and its list unless acknowledged, and names the insurers whose questions it touches', async () => {
    const internal = await scene.token(Role.INTERNAL);
    const product = newProduct();
    await publish(internal, product);
    const [insurer] = scene.world.insurers;
    const set = await graphql(scene.gateway, internal, REQUIREMENTS, { insurerId: insurer.id, product, pointers: ['/mfa'], from: past });
    expect(set.body.errors).toBeUndefined();
    const breaking = cyberQuestionSet() as { properties: Record<string, unknown>; required: string[] };
    breaking.required.push('mfa');
    const refused = await publish(internal, product, breaking);
    expect(refused.body.errors[0].extensions.code).toBe('BREAKING_CHANGE');
    expect(refused.body.errors[0].extensions.problems).toEqual([expect.objectContaining({ pointer: '/mfa' })]);
    const { body: unchanged } = await graphql(
      scene.gateway,
      internal,
      `
        query ($p: String!) {
          questionSet(product: $p) {
            version
          }
        }
      `,
      { p: product },
    );
    expect(unchanged.data.questionSet.version).toBe(1);
    const acknowledged = await publish(internal, product, breaking, true);
    expect(acknowledged.body.errors).toBeUndefined();
    expect(acknowledged.body.data.publishQuestionSet).toMatchObject({ questionSet: { version: 2 }, affectedInsurerIds: [insurer.id] });
  });

  it('refuses a schema it may not publish, naming each problem by its pointer, and publishes nothing', async () => {
    const internal = await scene.token(Role.INTERNAL);
    const product = newProduct();
    const remote = {
      ...cyberQuestionSet(),
      properties: { x: { $ref: 'https://evil.example/schema.json', 'x-label': { de: 'x', en: 'x' } } },
    };
    const { body } = await publish(internal, product, remote);
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(body.errors[0].extensions.problems).toEqual(
      expect.arrayContaining([expect.objectContaining({ pointer: '/properties/x/$ref' })]),
    );
    const { body: none } = await graphql(
      scene.gateway,
      internal,
      `
        query ($p: String!) {
          questionSets(product: $p) {
            version
          }
        }
      `,
      { p: product },
    );
    expect(none.data.questionSets).toEqual([]);
  });
});

describe('insurer requirements', () => {
  it("an insurer's own client changes them only 14 days ahead; internal users at any time; current and scheduled are shown", async () => {
    const internal = await scene.token(Role.INTERNAL);
    const product = newProduct();
    await publish(internal, product);
    const insurer = scene.world.insurers[1];
    const own = await scene.token(Role.INSURER, { insurerId: insurer.id });
    const soon = await graphql(scene.gateway, own, REQUIREMENTS, {
      insurerId: insurer.id,
      product,
      pointers: ['/employees'],
      from: new Date(Date.now() + 3 * 86_400_000).toISOString(),
    });
    expect(soon.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const later = new Date(Date.now() + 15 * 86_400_000).toISOString();
    const scheduled = await graphql(scene.gateway, own, REQUIREMENTS, {
      insurerId: insurer.id,
      product,
      pointers: ['/employees', '/locations'],
      from: later,
    });
    expect(scheduled.body.errors).toBeUndefined();
    const now = await graphql(scene.gateway, internal, REQUIREMENTS, { insurerId: insurer.id, product, pointers: ['/mfa'], from: past });
    expect(now.body.data.setInsurerRequirements).toEqual({
      current: { questionPointers: ['/mfa'] },
      scheduled: [{ questionPointers: ['/employees', '/locations'], effectiveFrom: later }],
    });
    const other = await graphql(
      scene.gateway,
      await scene.token(Role.INSURER, { insurerId: scene.world.insurers[0].id }),
      `
        query ($i: ID!, $p: String!) {
          insurerRequirements(insurerId: $i, product: $p) {
            current {
              questionPointers
            }
          }
        }
      `,
      { i: insurer.id, p: product },
    );
    expect(other.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const unknownQuestion = await graphql(scene.gateway, internal, REQUIREMENTS, {
      insurerId: insurer.id,
      product,
      pointers: ['/shoe_size'],
      from: past,
    });
    expect(unknownQuestion.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});

describe("a tender's risk assessment", () => {
  it('keeps a draft with missing answers, refuses a submission without them, each problem at its pointer, the same on every save', async () => {
    const internal = await scene.token(Role.INTERNAL);
    const broker = await scene.token(Role.BROKER);
    const product = newProduct();
    await publish(internal, product);
    const tender = await tenderOf(product);
    const partial = { employees: 12, had_incident: true };
    const draft = await graphql(scene.gateway, broker, SAVE, { tenderId: tender.id, answers: partial, expectedVersion: 0 });
    expect(draft.body.errors).toBeUndefined();
    expect(draft.body.data.saveRiskAnswers).toMatchObject({ status: 'DRAFT', version: 1, questionSet: { product, version: 1 } });
    const submitted = await graphql(scene.gateway, broker, SAVE, {
      tenderId: tender.id,
      answers: partial,
      expectedVersion: 1,
      submit: true,
    });
    expect(submitted.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const pointers = submitted.body.errors[0].extensions.problems.map((problem: { pointer: string }) => problem.pointer).sort();
    expect(pointers).toEqual(['/incident_description', '/turnover', '/type_of_business']);
    const wrongType = await graphql(scene.gateway, broker, SAVE, {
      tenderId: tender.id,
      answers: { employees: 'many' },
      expectedVersion: 1,
    });
    expect(wrongType.body.errors[0].extensions.problems).toEqual([expect.objectContaining({ pointer: '/employees' })]);
    const { body } = await graphql(scene.gateway, broker, ASSESSMENT, { id: tender.id, insurerId: scene.world.insurers[0].id });
    expect(body.data.tender.riskAssessment).toMatchObject({ status: 'DRAFT', version: 1, answers: partial });
  });

  it("refuses a save over a newer version with CONFLICT and loses nothing; of two broker clients' saves at once one wins", async () => {
    const internal = await scene.token(Role.INTERNAL);
    // Two API clients of the tender's broker company (each scene.token makes a client of its own).
    const broker = await scene.token(Role.BROKER);
    const otherClient = await scene.token(Role.BROKER);
    const product = newProduct();
    await publish(internal, product);
    const tender = await tenderOf(product);
    const saves = await Promise.all(
      [
        [broker, { employees: 1 }],
        [otherClient, { employees: 2 }],
      ].map(([token, answers]) => graphql(scene.gateway, token as string, SAVE, { tenderId: tender.id, answers, expectedVersion: 0 })),
    );
    const codes = saves.map(({ body }) => body.errors?.[0]?.extensions?.code ?? 'OK').sort();
    expect(codes).toEqual(['CONFLICT', 'OK']);
    const winner = saves.find(({ body }) => !body.errors)!.body.data.saveRiskAnswers.answers;
    const stale = await graphql(scene.gateway, broker, SAVE, { tenderId: tender.id, answers: { employees: 3 }, expectedVersion: 0 });
    expect(stale.body.errors[0].extensions.code).toBe('CONFLICT');
    const { body } = await graphql(scene.gateway, broker, ASSESSMENT, { id: tender.id, insurerId: scene.world.insurers[0].id });
    expect(body.data.tender.riskAssessment).toMatchObject({ version: 1, answers: winner });
  });

  it("records each answer's source: the customer's answers passed on by the broker, then the broker's own change", async () => {
    const internal = await scene.token(Role.INTERNAL);
    const broker = await scene.token(Role.BROKER);
    const product = newProduct();
    await publish(internal, product);
    const tender = await tenderOf(product);
    await graphql(scene.gateway, broker, SAVE, { tenderId: tender.id, answers: cyberAnswers(), expectedVersion: 0, source: 'CUSTOMER' });
    const { body } = await graphql(scene.gateway, broker, SAVE, {
      tenderId: tender.id,
      answers: { ...cyberAnswers(), employees: 50 },
      expectedVersion: 1,
    });
    const sources = Object.fromEntries(
      body.data.saveRiskAnswers.sources.map((entry: { pointer: string; source: string }) => [entry.pointer, entry.source]),
    );
    expect(sources).toMatchObject({ '/employees': 'BROKER', '/turnover': 'CUSTOMER', '/locations': 'CUSTOMER' });
  });

  it('shows the broker every answer, an invited insurer only those it requires and the specification fields, an analyst nothing', async () => {
    const internal = await scene.token(Role.INTERNAL);
    const broker = await scene.token(Role.BROKER);
    const product = newProduct();
    await publish(internal, product);
    const [insurer] = scene.world.insurers;
    await graphql(scene.gateway, internal, REQUIREMENTS, { insurerId: insurer.id, product, pointers: ['/employees'], from: past });
    const tender = await createTender(scene.em(), scene.world, { product, invited: [insurer] });
    await graphql(scene.gateway, broker, SAVE, { tenderId: tender.id, answers: cyberAnswers(), expectedVersion: 0, submit: true });
    const read = async (token: string) => (await graphql(scene.gateway, token, ASSESSMENT, { id: tender.id, insurerId: insurer.id })).body;
    expect((await read(broker)).data.tender.riskAssessment.answers).toEqual(cyberAnswers());
    const seenByInsurer = (await read(await scene.token(Role.INSURER, { insurerId: insurer.id }))).data.tender.riskAssessment;
    expect(seenByInsurer.answers).toEqual({
      turnover: { amount: 5_000_000, currency: 'EUR' },
      type_of_business: 'Software',
      employees: 42,
    });
    expect(seenByInsurer.sources.every((entry: { by: string | null }) => entry.by === null)).toBe(true);
    expect((await read(await scene.token(Role.ANALYST))).data.tender.riskAssessment).toBeNull();
  });
});

describe('quotes from the risk assessment', () => {
  it('STRICT refuses naming the insurer and its missing answers; FLEXIBLE sends the complete ones and the rest once answered, each only what it requires', async () => {
    const internal = await scene.token(Role.INTERNAL);
    const broker = await scene.token(Role.BROKER);
    const product = newProduct();
    await publish(internal, product);
    const sims = scene.closes(await startSimulatedInsurers(scene.gateway, [{ name: 'Risk Alpha' }, { name: 'Risk Beta' }]));
    const [alpha, beta] = sims.insurers;
    await graphql(scene.gateway, internal, REQUIREMENTS, { insurerId: alpha.id, product, pointers: ['/employees'], from: past });
    await graphql(scene.gateway, internal, REQUIREMENTS, {
      insurerId: beta.id,
      product,
      pointers: ['/employees', '/locations'],
      from: past,
    });
    const tender = await tenderOf(product);
    const { locations: _later, ...withoutLocations } = cyberAnswers();
    await graphql(scene.gateway, broker, SAVE, { tenderId: tender.id, answers: withoutLocations, expectedVersion: 0, submit: true });
    const input = { tenderId: tender.id, insurerIds: [alpha.id, beta.id], limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }] };

    const strict = await graphql(scene.gateway, broker, REQUEST_QUOTES, { input });
    expect(strict.body.errors[0].extensions.code).toBe('ANSWERS_MISSING');
    expect(strict.body.errors[0].extensions.errors).toEqual([
      { parameter: 'insurerIds[1]', message: expect.stringContaining('/locations') },
    ]);

    const flexible = await graphql(scene.gateway, broker, REQUEST_QUOTES, { input: { ...input, mode: 'FLEXIBLE' } });
    expect(flexible.body.errors).toBeUndefined();
    const statuses = Object.fromEntries(
      flexible.body.data.requestQuotes.map((request: { insurer: { id: string }; status: string }) => [request.insurer.id, request.status]),
    );
    expect(statuses).toEqual({ [alpha.id]: 'QUEUED', [beta.id]: 'AWAITING_INFORMATION' });
    const alphaSent = await waitFor('Alpha to receive its request', async () => sims.simulator.riskInformation(sims.slugs[0])[0]);
    expect(alphaSent).toEqual({
      turnover: { amount: 5_000_000, currency: 'EUR' },
      type_of_business: 'Software',
      customer_name: scene.world.customer.name,
      employees: 42,
    });
    expect(sims.simulator.riskInformation(sims.slugs[1])).toEqual([]);

    await graphql(scene.gateway, broker, SAVE, { tenderId: tender.id, answers: cyberAnswers(), expectedVersion: 1, submit: true });
    const betaSent = await waitFor(
      'Beta to receive its request once answered',
      async () => sims.simulator.riskInformation(sims.slugs[1])[0],
    );
    expect(betaSent).toEqual({
      turnover: { amount: 5_000_000, currency: 'EUR' },
      type_of_business: 'Software',
      customer_name: scene.world.customer.name,
      employees: 42,
      locations: cyberAnswers().locations,
    });
    // Neither received the contact's e-mail, the incident answers or the MFA answer: no insurer asked for them.
    for (const sent of [alphaSent, betaSent]) expect(Object.keys(sent)).not.toContain('contact_email');
  });

  it('keeps the question set version of the first quote request when a later one is published', async () => {
    const internal = await scene.token(Role.INTERNAL);
    const broker = await scene.token(Role.BROKER);
    const product = newProduct();
    await publish(internal, product);
    const sims = scene.closes(await startSimulatedInsurers(scene.gateway, [{ name: 'Frozen Alpha' }]));
    const tender = await tenderOf(product);
    await graphql(scene.gateway, broker, SAVE, { tenderId: tender.id, answers: cyberAnswers(), expectedVersion: 0, submit: true });
    const requested = await graphql(scene.gateway, broker, REQUEST_QUOTES, {
      input: { tenderId: tender.id, insurerIds: [sims.insurers[0].id], limits: [{ insuranceSum: 1_000_000, deductible: 0 }] },
    });
    expect(requested.body.errors).toBeUndefined();
    const next = cyberQuestionSet() as { properties: Record<string, unknown> };
    next.properties.fax = { 'x-label': { de: 'Fax', en: 'Fax' }, type: 'string' };
    const published = await publish(internal, product, next);
    expect(published.body.data.publishQuestionSet.affectedTenderIds).not.toContain(tender.id);
    const { body } = await graphql(scene.gateway, broker, ASSESSMENT, { id: tender.id, insurerId: sims.insurers[0].id });
    expect(body.data.tender.riskAssessment.questionSet.version).toBe(1);
  });
});

describe('hostile input', () => {
  it('gets a precise 4xx and changes nothing: 10 MiB, 10 000 levels, 100 000 groups, __proto__, a bad token', async () => {
    const internal = await scene.token(Role.INTERNAL);
    const broker = await scene.token(Role.BROKER);
    const product = newProduct();
    await publish(internal, product);
    const tender = await tenderOf(product);
    await graphql(scene.gateway, broker, SAVE, { tenderId: tender.id, answers: cyberAnswers(), expectedVersion: 0 });
    const post = (body: string, token = broker) =>
      fetch(`${scene.gateway.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body,
      });
    const save = (answers: string) =>
      JSON.stringify({ query: SAVE, variables: { tenderId: tender.id, expectedVersion: 1 } }).replace(
        '"variables":{',
        `"variables":{"answers":${answers},`,
      );

    expect((await post(save(JSON.stringify({ notes: 'x'.repeat(10 * 1024 * 1024) })))).status).toBe(413);
    const groups = Array.from({ length: 100_000 }, () => ({ city: 'X' }));
    expect((await post(save(JSON.stringify({ locations: groups })))).status).toBe(413);
    const deep = await post(save(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`));
    expect(deep.status).toBe(400);
    const proto = await post(save('{"__proto__": {"employees": 1}, "employees": 2}'));
    expect(((await proto.json()) as { errors: { extensions: { problems: unknown } }[] }).errors[0].extensions.problems).toEqual([
      { pointer: '/__proto__', message: 'not a question of this set' },
    ]);
    expect((await post(save('{}'), 'not-a-token')).status).toBe(401);
    const { body } = await graphql(scene.gateway, broker, ASSESSMENT, { id: tender.id, insurerId: scene.world.insurers[0].id });
    expect(body.data.tender.riskAssessment).toMatchObject({ version: 1, answers: cyberAnswers() });
  });

  it('a pattern that would backtrack without bound is published and runs in linear time; other schemas are refused', async () => {
    const internal = await scene.token(Role.INTERNAL);
    const broker = await scene.token(Role.BROKER);
    const product = newProduct();
    const schema = cyberQuestionSet() as { properties: Record<string, unknown> };
    schema.properties.code = { 'x-label': { de: 'Code', en: 'Code' }, type: 'string', pattern: '^(a+)+$' };
    expect((await publish(internal, product, schema)).body.errors).toBeUndefined();
    const tender = await tenderOf(product);
    const { body } = await graphql(scene.gateway, broker, SAVE, {
      tenderId: tender.id,
      answers: { code: `${'a'.repeat(60_000)}!` },
      expectedVersion: 0,
    });
    expect(body.errors[0].extensions.problems).toEqual([{ pointer: '/code', message: 'must match pattern "^(a+)+$"' }]);
    const recursive = { ...cyberQuestionSet(), $defs: { a: { $ref: '#/$defs/a' } } };
    const unknownFormat = { ...cyberQuestionSet(), properties: { x: { 'x-label': { de: 'x', en: 'x' }, type: 'string', format: 'iban' } } };
    for (const refused of [recursive, unknownFormat]) {
      const { body: answer } = await publish(internal, newProduct(), refused);
      expect(answer.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(answer.errors[0].extensions.problems.length).toBeGreaterThan(0);
    }
  });
});

describe('events and versions', () => {
  it('a submission is told to the broker company and a publication to the insurers that require the product, by ids only', async () => {
    const internal = await scene.token(Role.INTERNAL);
    const product = newProduct();
    await publish(internal, product);
    const [requiring, other] = scene.world.insurers;
    await graphql(scene.gateway, internal, REQUIREMENTS, { insurerId: requiring.id, product, pointers: ['/employees'], from: past });
    const receiver = scene.closes(await startWebhookReceiver());
    const subscribe = async (token: string, path: string, types: string[]) => {
      const response = await fetch(`${scene.gateway.url}/integration/v1/webhook-endpoints`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url(path), event_types: types }),
      });
      expect(response.status).toBe(201);
    };
    const broker = await scene.token(Role.BROKER);
    await subscribe(broker, '/broker', ['risk_assessment.submitted']);
    await subscribe(await scene.token(Role.INSURER, { insurerId: requiring.id }), '/requiring', ['question_set.published']);
    await subscribe(await scene.token(Role.INSURER, { insurerId: other.id }), '/other', ['question_set.published']);

    const tender = await tenderOf(product);
    await graphql(scene.gateway, broker, SAVE, { tenderId: tender.id, answers: cyberAnswers(), expectedVersion: 0, submit: true });
    const next = cyberQuestionSet() as { properties: Record<string, unknown> };
    next.properties.fax = { 'x-label': { de: 'Fax', en: 'Fax' }, type: 'string' };
    await publish(internal, product, next);

    const [submitted] = await waitFor(
      'the submission event',
      async () => receiver.received('/broker').length > 0 && receiver.received('/broker'),
    );
    expect(submitted.event).toMatchObject({
      type: 'risk_assessment.submitted',
      data: { tender_id: tender.id, status: 'QUOTES_AVAILABLE' },
    });
    const [published] = await waitFor(
      'the publication event',
      async () => receiver.received('/requiring').length > 0 && receiver.received('/requiring'),
    );
    expect(published.event).toMatchObject({ type: 'question_set.published', data: { product, version: 2, breaking: false } });
    // No answer travels in an event, and an insurer that requires nothing of the product hears nothing.
    expect(JSON.stringify([submitted.event, published.event])).not.toContain('it@acme.example');
    expect(receiver.received('/other')).toEqual([]);
  });

  it('a retired version starts no new tender; the one before is the latest again', async () => {
    const internal = await scene.token(Role.INTERNAL);
    const broker = await scene.token(Role.BROKER);
    const product = newProduct();
    await publish(internal, product);
    const next = cyberQuestionSet() as { properties: Record<string, unknown> };
    next.properties.fax = { 'x-label': { de: 'Fax', en: 'Fax' }, type: 'string' };
    await publish(internal, product, next);
    const retired = await graphql(
      scene.gateway,
      internal,
      'mutation($p: String!) { retireQuestionSet(product: $p, version: 2) { version retiredAt } }',
      { p: product },
    );
    expect(retired.body.data.retireQuestionSet.retiredAt).not.toBeNull();
    const again = await graphql(
      scene.gateway,
      internal,
      'mutation($p: String!) { retireQuestionSet(product: $p, version: 2) { version } }',
      { p: product },
    );
    expect(again.body.errors[0].extensions.code).toBe('CONFLICT');
    const tender = await tenderOf(product);
    const { body } = await graphql(scene.gateway, broker, SAVE, { tenderId: tender.id, answers: { employees: 1 }, expectedVersion: 0 });
    expect(body.data.saveRiskAnswers.questionSet.version).toBe(1);
    const { body: other } = await graphql(
      scene.gateway,
      broker,
      'mutation($p: String!) { retireQuestionSet(product: $p, version: 1) { version } }',
      { p: product },
    );
    expect(other.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

// Last: it moves the gateway's clock on for the rest of the file (events recorded then are due by it).
describe('insurer requirements over time', () => {
  it('a scheduled requirement takes effect on its date by the gateway clock, and what is missing follows it', async () => {
    const internal = await scene.token(Role.INTERNAL);
    const broker = await scene.token(Role.BROKER);
    const product = newProduct();
    await publish(internal, product);
    const insurer = scene.world.insurers[2];
    const own = await scene.token(Role.INSURER, { insurerId: insurer.id });
    const from = new Date(now().getTime() + 20 * 86_400_000).toISOString();
    await graphql(scene.gateway, internal, REQUIREMENTS, { insurerId: insurer.id, product, pointers: ['/employees'], from: past });
    const scheduled = await graphql(scene.gateway, own, REQUIREMENTS, {
      insurerId: insurer.id,
      product,
      pointers: ['/employees', '/mfa'],
      from,
    });
    expect(scheduled.body.data.setInsurerRequirements.current).toEqual({ questionPointers: ['/employees'] });
    const tender = await createTender(scene.em(), scene.world, { product, invited: [insurer] });
    await graphql(scene.gateway, broker, SAVE, { tenderId: tender.id, answers: { employees: 5 }, expectedVersion: 0 });
    const missing = async () =>
      (await graphql(scene.gateway, broker, ASSESSMENT, { id: tender.id, insurerId: insurer.id })).body.data.tender.riskAssessment.missing;
    expect(await missing()).toEqual([]);
    ahead += 21 * 86_400_000;
    expect(await missing()).toEqual(['/mfa']);
    const { body } = await graphql(
      scene.gateway,
      own,
      `
        query ($i: ID!, $p: String!) {
          insurerRequirements(insurerId: $i, product: $p) {
            current {
              questionPointers
            }
            scheduled {
              questionPointers
            }
          }
        }
      `,
      { i: insurer.id, p: product },
    );
    expect(body.data.insurerRequirements).toEqual({ current: { questionPointers: ['/employees', '/mfa'] }, scheduled: [] });
  });
});

describe('the demo products end to end', () => {
  it.each(DEMO_QUESTION_SETS.map((set) => [set.lineOfBusiness, set.schema] as const))(
    'a %s tender answered from its demo question set gets a quote from each simulated insurer, each sent only the answers it requires',
    async (lineName, schema) => {
      const internal = await scene.token(Role.INTERNAL);
      const broker = await scene.token(Role.BROKER);
      const em = scene.em();
      const line = (await em.findOne(LineOfBusiness, { name: lineName })) ?? em.create(LineOfBusiness, { name: lineName });
      await em.flush();
      const product = `Demo ${lineName} ${++products}`;
      const published = await graphql(scene.gateway, internal, PUBLISH, { input: { product, lineOfBusinessId: line.id, schema } });
      expect(published.body.errors, JSON.stringify(published.body.errors)).toBeUndefined();
      const sims = scene.closes(await startSimulatedInsurers(scene.gateway, [{ name: `${lineName} One` }, { name: `${lineName} Two` }]));
      const required = sims.insurers.map((_, index) => demoRequirements(index, lineName));
      for (const [index, insurer] of sims.insurers.entries()) {
        const set = await graphql(scene.gateway, internal, REQUIREMENTS, {
          insurerId: insurer.id,
          product,
          pointers: required[index],
          from: past,
        });
        expect(set.body.errors, JSON.stringify(set.body.errors)).toBeUndefined();
      }
      const tender = await createTender(scene.em(), scene.world, { product, line, invited: [] });
      let state = products;
      const answers = demoAnswers(lineName, () => (state = (state * 48_271) % 2_147_483_647) / 2_147_483_647);
      const saved = await graphql(scene.gateway, broker, SAVE, { tenderId: tender.id, answers, expectedVersion: 0, submit: true });
      expect(saved.body.errors, JSON.stringify(saved.body.errors)).toBeUndefined();
      const requested = await graphql(scene.gateway, broker, REQUEST_QUOTES, {
        input: {
          tenderId: tender.id,
          insurerIds: sims.insurers.map(({ id }) => id),
          limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }],
        },
      });
      expect(requested.body.errors, JSON.stringify(requested.body.errors)).toBeUndefined();
      const quoted = await waitFor('both quote requests to be QUOTED', async () => {
        const { body } = await graphql(
          scene.gateway,
          broker,
          'query($id: ID!) { quoteRequests(tenderId: $id) { status options { id } } }',
          {
            id: tender.id,
          },
        );
        const requests = body.data.quoteRequests as { status: string; options: unknown[] }[];
        return requests.length === 2 && requests.every(({ status }) => status === 'QUOTED') && requests;
      });
      for (const request of quoted) expect(request.options.length).toBeGreaterThan(0);
      for (const [index, slug] of sims.slugs.entries()) {
        const [sent] = sims.simulator.riskInformation(slug);
        // The specification's fields always (website_url where answered), then the answers this insurer requires.
        const asked = [
          ...required[index].map((pointer) => pointer.split('/')[1]),
          'customer_name',
          ...('website_url' in answers ? ['website_url'] : []),
        ];
        expect(Object.keys(sent).sort(), JSON.stringify(sent)).toEqual([...new Set(asked)].sort());
      }
    },
    60_000,
  );
});
