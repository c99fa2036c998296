import { describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { LIMITS } from '../src/platform/validation/rules';
import { createTender } from './helpers/fixtures';
import { graphql } from './helpers/gateway';
import { cyberAnswers, cyberQuestionSet } from './helpers/question-sets';
import { withGateway } from './helpers/scene';

/** Issue 39's REST surfaces: question sets, a tender's risk assessment and saving its answers, beside GraphQL's. */
const scene = withGateway({ per: 'file', world: true, env: { ACCESS_LOG_FLUSH_MS: '20' } });

const PUBLISH = `mutation($input: PublishQuestionSetInput!) { publishQuestionSet(input: $input) { questionSet { version } } }`;
const REQUIREMENTS = `mutation($insurerId: ID!, $product: String!, $pointers: [String!]!, $from: DateTimeISO!) {
  setInsurerRequirements(insurerId: $insurerId, product: $product, questionPointers: $pointers, effectiveFrom: $from) { current { questionPointers } } }`;
const SAVE = `mutation($tenderId: ID!, $answers: JSONObject!, $expectedVersion: Int!, $submit: Boolean) {
  saveRiskAnswers(tenderId: $tenderId, answers: $answers, expectedVersion: $expectedVersion, submit: $submit) { version } }`;
const ASSESSMENT = `query($id: ID!) { tender(id: $id) { riskAssessment {
  tenderId questionSet { product version } status version answers sources { pointer source by at } submittedAt updatedAt } } }`;
const QUESTION_SETS = `query($product: String) { questionSets(product: $product) {
  product version lineOfBusinessId digest publishedAt retiredAt } }`;

let products = 0;
/** A product of its own per test (with a space and a slash, which the URL carries encoded), so the file's one gateway serves every test. */
const newProduct = () => `Cyber REST/${++products} Test`;
const past = new Date(Date.now() - 24 * 3600_000).toISOString();

async function publish(product: string, schema = cyberQuestionSet()) {
  const { body } = await graphql(scene.gateway, await scene.token(Role.INTERNAL), PUBLISH, {
    input: { product, lineOfBusinessId: scene.world.lines.cyber.id, schema },
  });
  expect(body.errors).toBeUndefined();
}

interface Call {
  body?: unknown;
  /** Sent as it is, instead of `body` as JSON. */
  raw?: string;
  type?: string;
  headers?: Record<string, string>;
}

async function call(method: string, path: string, token: string | undefined, { body, raw, type, headers = {} }: Call = {}) {
  const sent = raw ?? (body === undefined ? undefined : JSON.stringify(body));
  const response = await fetch(`${scene.gateway.url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(sent === undefined ? {} : { 'content-type': type ?? 'application/json' }),
      ...headers,
    },
    body: sent,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

const assessmentPath = (api: 'public' | 'api' | 'integration', tenderId: string) =>
  `/${api}/v1/tenders/${encodeURIComponent(tenderId)}/risk-assessment`;
const setPath = (api: 'public' | 'api', product: string, version: number | 'latest') =>
  `/${api}/v1/question-sets/${encodeURIComponent(product)}/${version}`;

/** GraphQL's assessment in the REST names. */
function inRestNames(view: Record<string, any>) {
  return {
    tender_id: view.tenderId,
    question_set: view.questionSet,
    status: view.status,
    version: view.version,
    answers: view.answers,
    sources: view.sources,
    submitted_at: view.submittedAt,
    updated_at: view.updatedAt,
  };
}

async function graphqlAssessment(token: string, tenderId: string) {
  const { body } = await graphql(scene.gateway, token, ASSESSMENT, { id: tenderId });
  expect(body.errors).toBeUndefined();
  return body.data.tender.riskAssessment;
}

/** A tender of a new product, invited insurer 0 requiring `/employees`, and the broker's submitted answers. */
async function answeredTender() {
  const product = newProduct();
  await publish(product);
  const [insurer] = scene.world.insurers;
  const internal = await scene.token(Role.INTERNAL);
  const required = await graphql(scene.gateway, internal, REQUIREMENTS, {
    insurerId: insurer.id,
    product,
    pointers: ['/employees'],
    from: past,
  });
  expect(required.body.errors).toBeUndefined();
  const tender = await createTender(scene.em(), scene.world, { product, invited: [insurer] });
  const broker = await scene.token(Role.BROKER);
  const saved = await call('PUT', assessmentPath('integration', tender.id), broker, {
    body: { answers: cyberAnswers(), expected_version: 0, submit: true, source: 'CUSTOMER' },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  return { product, tender, broker, insurer: await scene.token(Role.INSURER, { insurerId: insurer.id }) };
}

describe('question sets over REST', () => {
  it('lists every version without schemas under both APIs, as GraphQL does, and refuses unknown or empty parameters', async () => {
    const product = newProduct();
    await publish(product);
    await publish(product, { ...cyberQuestionSet(), description: 'second' });
    const { body: graph } = await graphql(scene.gateway, await scene.token(Role.INTERNAL), QUESTION_SETS, { product });
    const expected = graph.data.questionSets.map((set: Record<string, unknown>) => ({
      product: set.product,
      version: set.version,
      line_of_business_id: set.lineOfBusinessId,
      digest: set.digest,
      published_at: set.publishedAt,
      retired_at: set.retiredAt,
    }));
    for (const [api, role] of [
      ['public', Role.INSURER],
      ['api', Role.BROKER],
    ] as const) {
      const token = await scene.token(role);
      const listed = await call('GET', `/${api}/v1/question-sets?product=${encodeURIComponent(product)}`, token);
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual({ metadata: { count: '2' }, payload: expected });
      expect(listed.body.payload.map((set: { version: number }) => set.version)).toEqual([2, 1]);
      const everything = await call('GET', `/${api}/v1/question-sets`, token);
      expect(everything.body.payload).toEqual(expect.arrayContaining(expected));
      expect((await call('GET', `/${api}/v1/question-sets?sort=version`, token)).body.errors).toEqual([
        { parameter: 'sort', message: expect.stringContaining('unknown parameter') },
      ]);
      expect((await call('GET', `/${api}/v1/question-sets?product=`, token)).status).toBe(400);
    }
  });

  it('serves a version with its schema and a strong ETag from its digest; If-None-Match is a 304 until the version is retired', async () => {
    const product = newProduct();
    await publish(product);
    await publish(product, { ...cyberQuestionSet(), description: 'second' });
    const insurer = await scene.token(Role.INSURER);
    const first = await call('GET', setPath('public', product, 1), insurer);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ product, version: 1, line_of_business_id: scene.world.lines.cyber.id, retired_at: null });
    expect(first.body.schema).toEqual(cyberQuestionSet());
    const tag = first.headers.get('etag')!;
    expect(tag).toBe(`"1-${first.body.digest}"`);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');

    const unchanged = await call('GET', setPath('public', product, 1), insurer, { headers: { 'if-none-match': tag } });
    expect(unchanged.status).toBe(304);
    expect(unchanged.body).toBeUndefined();
    expect(unchanged.headers.get('etag')).toBe(tag);

    const latest = await call('GET', setPath('api', product, 'latest'), await scene.token(Role.BROKER), {
      headers: { 'if-none-match': tag },
    });
    expect(latest.status).toBe(200);
    expect(latest.body).toMatchObject({ version: 2, schema: { description: 'second' } });

    const retired = await graphql(
      scene.gateway,
      await scene.token(Role.INTERNAL),
      'mutation($p: String!) { retireQuestionSet(product: $p, version: 1) { version } }',
      { p: product },
    );
    expect(retired.body.errors).toBeUndefined();
    const after = await call('GET', setPath('public', product, 1), insurer, { headers: { 'if-none-match': tag } });
    expect(after.status).toBe(200);
    expect(after.body.retired_at).not.toBeNull();
    expect(after.headers.get('etag')).toBe(`"1-${first.body.digest}-retired"`);
  });

  it('answers 404 for an unknown product or version and 400 for a version that is neither latest nor a whole number from 1', async () => {
    const product = newProduct();
    await publish(product);
    const broker = await scene.token(Role.BROKER);
    for (const path of [setPath('api', product, 2), setPath('api', `${product} unknown`, 'latest')]) {
      const { status, body } = await call('GET', path, broker);
      expect({ status, code: body.code }, path).toEqual({ status: 404, code: 'NOT_FOUND' });
    }
    for (const version of ['0', '-1', '1.5', 'newest', '99999999999']) {
      const { status, body } = await call('GET', `/api/v1/question-sets/${encodeURIComponent(product)}/${version}`, broker);
      expect({ status, errors: body.errors }, version).toEqual({
        status: 400,
        errors: [expect.objectContaining({ parameter: 'version' })],
      });
    }
    expect((await call('GET', `${setPath('api', product, 1)}?lang=de`, broker)).status).toBe(400);
  });
});

describe("a tender's risk assessment over REST", () => {
  it("shows the broker every answer with its source and the insurer only those it requires, each exactly as GraphQL's", async () => {
    const { tender, broker, insurer } = await answeredTender();
    const forBroker = await call('GET', assessmentPath('api', tender.id), broker);
    expect(forBroker.status).toBe(200);
    expect(forBroker.body).toEqual(inRestNames(await graphqlAssessment(broker, tender.id)));
    expect(forBroker.body.answers).toEqual(cyberAnswers());
    expect(forBroker.body.sources.every((entry: { source: string; by: string }) => entry.source === 'CUSTOMER' && entry.by)).toBe(true);

    const forInsurer = await call('GET', assessmentPath('public', tender.id), insurer);
    expect(forInsurer.status).toBe(200);
    expect(forInsurer.body).toEqual(inRestNames(await graphqlAssessment(insurer, tender.id)));
    expect(forInsurer.body.answers).toEqual({
      turnover: cyberAnswers().turnover,
      type_of_business: 'Software',
      employees: 42,
    });
    expect(forInsurer.body.sources.map((entry: { pointer: string; by: null }) => [entry.pointer, entry.by])).toEqual([
      ['/employees', null],
      ['/turnover', null],
      ['/type_of_business', null],
    ]);
  });

  it('records one REST read per answer in the access log, on its route', async () => {
    const { tender, broker, insurer } = await answeredTender();
    expect((await call('GET', assessmentPath('public', tender.id), insurer)).status).toBe(200);
    expect((await call('GET', assessmentPath('api', tender.id), broker)).status).toBe(200);
    const internal = await scene.token(Role.INTERNAL);
    const counts = async () => {
      const { body } = await call('GET', `/api/v1/tenders/${tender.id}/access-log?limit=200`, internal);
      return Object.fromEntries(
        body.payload
          .filter((entry: { operation: string }) => entry.operation.endsWith('/risk-assessment'))
          .map((entry: { surface: string; operation: string; count: number }) => [`${entry.surface} ${entry.operation}`, entry.count]),
      );
    };
    await expect.poll(counts).toEqual({
      'REST PUT /integration/v1/tenders/:id/risk-assessment': 1,
      'REST GET /public/v1/tenders/:id/risk-assessment': 1,
      'REST GET /api/v1/tenders/:id/risk-assessment': 1,
    });
  });

  it('is a 404 for an uninvited insurer, for a tender without answers and for the invited insurer once the tender is closed', async () => {
    const { tender, broker, insurer } = await answeredTender();
    const uninvited = await scene.token(Role.INSURER, 1);
    expect((await call('GET', assessmentPath('public', tender.id), uninvited)).body.code).toBe('NOT_FOUND');
    const unanswered = await createTender(scene.em(), scene.world, { product: 'Cyber Protect' });
    const none = await call('GET', assessmentPath('api', unanswered.id), broker);
    expect({ status: none.status, code: none.body.code }).toEqual({ status: 404, code: 'NOT_FOUND' });

    const closed = await graphql(scene.gateway, broker, 'mutation($id: ID!) { closeTender(tenderId: $id, reason: "lost") { status } }', {
      id: tender.id,
    });
    expect(closed.body.data.closeTender.status).toBe('CLOSED');
    const afterClose = await call('GET', assessmentPath('public', tender.id), insurer);
    expect({ status: afterClose.status, code: afterClose.body.code }).toEqual({ status: 404, code: 'NOT_FOUND' });
    expect((await call('GET', assessmentPath('api', tender.id), broker)).body.answers).toEqual(cyberAnswers());
  });

  it("is refused to an analyst (403) on both APIs, and to an insurer on the broker's API and the save", async () => {
    const { tender } = await answeredTender();
    const analyst = await scene.token(Role.ANALYST);
    const insurer = await scene.token(Role.INSURER);
    for (const [method, path, token] of [
      ['GET', assessmentPath('public', tender.id), analyst],
      ['GET', assessmentPath('api', tender.id), analyst],
      ['GET', '/public/v1/question-sets', analyst],
      ['GET', assessmentPath('api', tender.id), insurer],
      ['PUT', assessmentPath('integration', tender.id), insurer],
      ['PUT', assessmentPath('integration', tender.id), analyst],
    ] as const) {
      const { status, body } = await call(method, path, token, method === 'PUT' ? { body: { answers: {}, expected_version: 1 } } : {});
      expect({ status, code: body.code }, `${method} ${path}`).toEqual({ status: 403, code: 'FORBIDDEN' });
    }
  });
});

describe('saving the answers over REST', () => {
  it('answers the saved assessment as the read shows it; a stale expected_version is a 409 that changes nothing', async () => {
    const { tender, broker } = await answeredTender();
    const path = assessmentPath('integration', tender.id);
    const saved = await call('PUT', path, broker, { body: { answers: { ...cyberAnswers(), employees: 50 }, expected_version: 1 } });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ status: 'DRAFT', version: 2, answers: { employees: 50 } });
    expect(saved.body).toEqual((await call('GET', assessmentPath('api', tender.id), broker)).body);
    expect(saved.body.sources.find((entry: { pointer: string }) => entry.pointer === '/employees').source).toBe('BROKER');

    const stale = await call('PUT', path, broker, { body: { answers: { employees: 7 }, expected_version: 1, submit: true } });
    expect(stale.status).toBe(409);
    expect(stale.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(stale.body).toMatchObject({ code: 'CONFLICT', errors: [{ pointer: '/expected_version', message: 'the current version is 2' }] });
    expect((await call('GET', assessmentPath('api', tender.id), broker)).body).toEqual(saved.body);
  });

  it("names each answer's problem by its pointer in errors, the same problems GraphQL reports", async () => {
    const { tender, broker } = await answeredTender();
    const answers = { ...cyberAnswers(), employees: 'many', turnover: { amount: -1, currency: 'USD' } };
    const refused = await call('PUT', assessmentPath('integration', tender.id), broker, { body: { answers, expected_version: 1 } });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('BAD_USER_INPUT');
    expect(refused.body.errors.map((problem: { pointer: string }) => problem.pointer)).toEqual([
      '/employees',
      '/turnover/amount',
      '/turnover/currency',
    ]);
    const viaGraphql = await graphql(scene.gateway, broker, SAVE, { tenderId: tender.id, answers, expectedVersion: 1 });
    expect(refused.body.errors).toEqual(viaGraphql.body.errors[0].extensions.problems);
    expect((await call('GET', assessmentPath('api', tender.id), broker)).body.version).toBe(1);
  });

  const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const HOSTILE: { name: string; request: Call & { token?: string; query?: string }; status: number; errors?: unknown[] }[] = [
    { name: 'malformed JSON', request: { raw: '{"answers": {"employees": 1}, "expected_version": ' }, status: 400 },
    { name: 'no body', request: {}, status: 400, errors: [{ pointer: '', message: expect.any(String) }] },
    { name: 'a body that is not JSON', request: { raw: 'employees=1', type: 'text/plain' }, status: 415 },
    {
      name: 'a body over the limit',
      request: { body: { answers: { type_of_business: 'x'.repeat(LIMITS.riskAnswersBodyBytes) }, expected_version: 1 } },
      status: 413,
    },
    {
      name: 'answers over their own limit within the body limit',
      request: { body: { answers: { type_of_business: 'x'.repeat(LIMITS.riskAnswersBytes) }, expected_version: 1 } },
      status: 400,
      errors: [{ pointer: '', message: expect.stringContaining('KiB') }],
    },
    { name: 'answers nesting 10 000 deep', request: { raw: `{"answers": ${nested(10_000)}, "expected_version": 1}` }, status: 400 },
    {
      name: 'answers nesting deeper than answers may within the body limit',
      request: { raw: `{"answers": ${nested(30)}, "expected_version": 1}` },
      status: 400,
      errors: [{ pointer: '', message: expect.stringContaining('levels deep') }],
    },
    {
      name: '100 000 repeated group items',
      request: {
        body: { answers: { ...cyberAnswers(), locations: Array.from({ length: 100_000 }, () => ({ city: 'X' })) }, expected_version: 1 },
      },
      status: 413,
    },
    {
      name: 'more repeated group items than the question allows',
      request: {
        body: { answers: { ...cyberAnswers(), locations: Array.from({ length: 51 }, () => ({ city: 'X' })) }, expected_version: 1 },
      },
      status: 400,
      errors: [{ pointer: '/locations', message: expect.any(String) }],
    },
    {
      name: 'a __proto__ key among the answers',
      request: { raw: '{"answers": {"employees": 3, "__proto__": {"employees": 4}}, "expected_version": 1}' },
      status: 400,
      errors: [{ pointer: '/__proto__', message: 'not a question of this set' }],
    },
    {
      name: 'a __proto__ key in the body',
      request: { raw: '{"answers": {"employees": 3}, "expected_version": 1, "__proto__": {"submit": true}}' },
      status: 400,
      errors: [{ pointer: '/__proto__', message: 'unknown field' }],
    },
    {
      name: 'an unknown body field',
      request: { body: { answers: { employees: 3 }, expected_version: 1, force: true } },
      status: 400,
      errors: [{ pointer: '/force', message: 'unknown field' }],
    },
    {
      name: 'answers that are no object',
      request: { body: { answers: [1, 2], expected_version: 1 } },
      status: 400,
      errors: [{ pointer: '/answers', message: expect.stringContaining('JSON object') }],
    },
    {
      name: 'a carried-over source, which only a renewal sets',
      request: { body: { answers: { employees: 3 }, expected_version: 1, source: 'CARRIED_OVER' } },
      status: 400,
      errors: [{ pointer: '/source', message: expect.stringContaining('BROKER') }],
    },
    {
      name: 'a negative expected_version',
      request: { body: { answers: { employees: 3 }, expected_version: -1 } },
      status: 400,
      errors: [{ pointer: '/expected_version', message: expect.any(String) }],
    },
    { name: 'a bad token', request: { token: 'not-a-token', body: { answers: { employees: 3 }, expected_version: 1 } }, status: 401 },
    {
      name: 'an unknown query parameter',
      request: { query: '?force=1', body: { answers: { employees: 3 }, expected_version: 1 } },
      status: 400,
      errors: [{ parameter: 'force', message: 'unknown parameter' }],
    },
  ];

  it.each(HOSTILE)('refuses $name with $status and changes nothing', async ({ request, status, errors }) => {
    const { tender, broker } = await answeredTender();
    const before = (await call('GET', assessmentPath('api', tender.id), broker)).body;
    const { token = broker, query = '', ...sent } = request;
    const refused = await call('PUT', `${assessmentPath('integration', tender.id)}${query}`, token, sent);
    expect(refused.status, JSON.stringify(refused.body)).toBe(status);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    if (errors) expect(refused.body.errors).toEqual(errors);
    expect((await call('GET', assessmentPath('api', tender.id), broker)).body).toEqual(before);
  });

  it('answers other methods on the save path with 405 naming PUT, and writes under the read APIs with 405 naming GET and HEAD', async () => {
    const { tender, broker } = await answeredTender();
    for (const method of ['GET', 'POST', 'PATCH', 'DELETE']) {
      const { status, headers, body } = await call(method, assessmentPath('integration', tender.id), broker);
      expect({ status, allow: headers.get('allow'), code: body.code }, method).toEqual({
        status: 405,
        allow: 'PUT',
        code: 'METHOD_NOT_ALLOWED',
      });
    }
    const underReads = await call('PUT', assessmentPath('api', tender.id), broker, { body: { answers: {}, expected_version: 1 } });
    expect({ status: underReads.status, allow: underReads.headers.get('allow') }).toEqual({ status: 405, allow: 'GET, HEAD' });
  });
});
