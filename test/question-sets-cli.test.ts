import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { cli as runCli, spawnCli } from './helpers/cli';
import { databaseUrlFor } from './helpers/database';
import { createTender } from './helpers/fixtures';
import { graphql, TEST_JWT_SECRET } from './helpers/gateway';
import { cyberAnswers, cyberQuestionSet } from './helpers/question-sets';
import { withGateway } from './helpers/scene';
import { waitFor } from './helpers/simulator';
import { startWebhookReceiver } from './helpers/webhook-receiver';

/**
 * Issue 39: the question set commands of the operator CLI, run on the database of a running gateway (the scene's
 * data folder), so that what the CLI publishes and says is compared with what GraphQL serves and says.
 */
const scene = withGateway({ per: 'file', world: true, webhooks: 'fast' });

const files = mkdtempSync(join(tmpdir(), 'tender-exchange-question-sets-'));
afterAll(() => rmSync(files, { recursive: true, force: true }));

let written = 0;
/** A file for the CLI to read: `content` as JSON (indented, as a person writes it), or a string as it is. */
function file(content: unknown): string {
  const path = join(files, `file-${++written}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

/** `npm run cli -- ...args` on the gateway's database, in the test process. */
async function cli(...args: string[]) {
  const { dataDir } = scene.gateway;
  return runCli({ DATA_DIR: dataDir, DATABASE_URL: await databaseUrlFor(dataDir), JWT_SECRET: TEST_JWT_SECRET }, ...args);
}

let products = 0;
/** A product of its own per test: the file's one gateway serves every test. */
const newProduct = () => `Cyber CLI ${++products}`;

type Schema = { required: string[]; properties: Record<string, Record<string, unknown>> } & Record<string, unknown>;
const cyber = () => cyberQuestionSet() as Schema;

/** A file in the publish format for `product` in the world's cyber line. */
const publishFile = (product: string, schema: Record<string, unknown> = cyberQuestionSet()) =>
  file({ product, lineOfBusinessId: scene.world.lines.cyber.id, schema });

async function versionsOf(product: string): Promise<number[]> {
  const { body } = await graphql(
    scene.gateway,
    await scene.token(Role.INTERNAL),
    'query($p: String!) { questionSets(product: $p) { version } }',
    { p: product },
  );
  return body.data.questionSets.map((set: { version: number }) => set.version);
}

const SAVE = `mutation($tenderId: ID!, $answers: JSONObject!) {
  saveRiskAnswers(tenderId: $tenderId, answers: $answers, expectedVersion: 0, submit: true) { version } }`;

describe('question-sets:publish', () => {
  it('publishes a set from a file as the next version, printing its version and changes, and GraphQL serves it', async () => {
    const product = newProduct();
    const first = await cli('question-sets:publish', publishFile(product));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`^published ${product} version 1 \\(sha256 [0-9a-f]{64}\\)\nits first version`));

    const widened = cyber();
    widened.properties.employees.maximum = 10_000_000;
    const second = await cli('question-sets:publish', publishFile(product, widened), '--json');
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({
      product,
      line_of_business_id: scene.world.lines.cyber.id,
      version: 2,
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      changes: [{ pointer: '/employees', kind: 'RANGE_WIDENED', breaking: false, description: '"Employees" has a widened range' }],
      affected_tender_ids: [],
      affected_insurer_ids: [],
    });
    const { body } = await graphql(
      scene.gateway,
      await scene.token(Role.BROKER),
      'query($p: String!) { questionSet(product: $p) { version schema } }',
      { p: product },
    );
    expect(body.data.questionSet).toEqual({ version: 2, schema: widened });
  });

  it('refuses a breaking change with its list and exit 1, publishing nothing; with --acknowledge-breaking it is published and the insurers requiring the product hear of it', async () => {
    const product = newProduct();
    expect((await cli('question-sets:publish', publishFile(product))).code).toBe(0);
    const internal = await scene.token(Role.INTERNAL);
    const [insurer] = scene.world.insurers;
    const required = await graphql(
      scene.gateway,
      internal,
      `
        mutation ($i: ID!, $p: String!) {
          setInsurerRequirements(insurerId: $i, product: $p, questionPointers: ["/mfa"], effectiveFrom: "2020-01-01T00:00:00Z") {
            current {
              questionPointers
            }
          }
        }
      `,
      { i: insurer.id, p: product },
    );
    expect(required.body.errors).toBeUndefined();
    const receiver = scene.closes(await startWebhookReceiver());
    const endpoint = await graphql(
      scene.gateway,
      await scene.token(Role.INSURER),
      'mutation($url: String!) { createWebhookEndpoint(input: { url: $url, eventTypes: [QUESTION_SET_PUBLISHED] }) { secret } }',
      { url: receiver.url() },
    );
    expect(endpoint.body.errors).toBeUndefined();

    const breaking = cyber();
    breaking.required.push('mfa');
    const path = publishFile(product, breaking);
    const refused = await cli('question-sets:publish', path);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `BREAKING_CHANGE: Version 2 of ${product} breaks 1 promise(s) of version 1; publish with acknowledgeBreaking to go ahead\n` +
        '  /mfa: BECAME_REQUIRED: "Multi-factor authentication" is now required\n' +
        'nothing was published; publish it anyway with --acknowledge-breaking\n',
    );
    const refusedJson = await cli('question-sets:publish', path, '--json');
    expect(refusedJson.code).toBe(1);
    expect(JSON.parse(refusedJson.stderr).error).toMatchObject({
      code: 'BREAKING_CHANGE',
      errors: [{ pointer: '/mfa', message: 'BECAME_REQUIRED: "Multi-factor authentication" is now required' }],
    });
    expect(await versionsOf(product)).toEqual([1]);

    const acknowledged = await cli('question-sets:publish', path, '--acknowledge-breaking');
    expect(acknowledged.code, acknowledged.stderr).toBe(0);
    expect(acknowledged.stdout).toContain('  /mfa  BECAME_REQUIRED  BREAKING  "Multi-factor authentication" is now required');
    expect(acknowledged.stdout).toContain(`insurers whose required questions a breaking change touches: ${insurer.id}`);
    expect(await versionsOf(product)).toEqual([2, 1]);
    // The gateway delivers what the CLI's publication announced, as after publishQuestionSet.
    await waitFor('the webhook', async () => receiver.received().length === 1);
    expect(receiver.received()[0].event).toMatchObject({ type: 'question_set.published', data: { product, version: 2, breaking: true } });
  });

  it('refuses files that are not a question set to publish, naming the fault, with exit 2; a schema with problems with exit 1; nothing is published', async () => {
    const product = newProduct();
    const notJson = await cli('question-sets:publish', file('{"product": "x",'));
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/^BAD_USER_INPUT: \S+ is not JSON: /);

    const huge = await cli('question-sets:publish', file(`{"product":"${'x'.repeat(10 * 1024 * 1024)}"}`));
    expect(huge.code).toBe(2);
    expect(huge.stderr).toMatch(/is larger than 512 KiB: not read/);

    const missing = await cli('question-sets:publish', join(files, 'no-such-file.json'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no-such-file\.json cannot be read: ENOENT/);

    const fields = await cli('question-sets:publish', file({ product, schema: [], owner: 'me' }));
    expect(fields.code).toBe(2);
    expect(fields.stderr).toMatch(/is not in the publish format \{ "product", "lineOfBusinessId", "schema" \}\n/);
    expect(fields.stderr).toContain('  owner: is not a field of the publish format (product, lineOfBusinessId, schema)\n');
    expect(fields.stderr).toContain('  lineOfBusinessId: required\n');
    expect(fields.stderr).toContain('  schema: must be a JSON object (the JSON Schema)\n');

    const lineOfBusinessId = scene.world.lines.cyber.id;
    const proto = await cli(
      'question-sets:publish',
      file(`{"__proto__": {"polluted": true}, "product": "${product}", "lineOfBusinessId": "${lineOfBusinessId}", "schema": {}}`),
    );
    expect(proto.code).toBe(2);
    expect(proto.stderr).toContain('  __proto__: is not a field of the publish format');

    // A question named __proto__: Ajv would read it through the prototype (required always met, answers never fit).
    const protoQuestion = JSON.stringify(cyberQuestionSet())
      .replace('"required":["turnover"', '"required":["__proto__","turnover"')
      .replace('"properties":{', '"properties":{"__proto__":{"x-label":{"de":"P","en":"P"},"type":"string"},');
    const protoSchema = await cli(
      'question-sets:publish',
      file(`{"product": "${product}", "lineOfBusinessId": "${lineOfBusinessId}", "schema": ${protoQuestion}}`),
    );
    expect(protoSchema.code).toBe(1);
    expect(protoSchema.stderr).toContain('  /properties/__proto__: is not allowed: no question takes the name "__proto__"\n');
    expect(protoSchema.stderr).toContain('  /required/0: must not name "__proto__": no question takes that name\n');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    const remote = cyber();
    remote.properties.x = { $ref: 'https://evil.example/schema.json', 'x-label': { de: 'x', en: 'x' } };
    const remoteRef = await cli('question-sets:publish', publishFile(product, remote));
    expect(remoteRef.code).toBe(1);
    expect(remoteRef.stderr).toBe(
      'BAD_USER_INPUT: The question set cannot be published\n' +
        '  /properties/x/$ref: must refer to this document\'s own "#/$defs/<name>"; nothing is loaded from elsewhere\n',
    );
    expect(await versionsOf(product)).toEqual([]);
  });
});

describe('question-sets:diff', () => {
  it('prints the changes as JSON, exit 0 when none is breaking and 1 when one is; plain schemas and publish-format files compare alike', async () => {
    const before = file(cyberQuestionSet());
    const widened = cyber();
    widened.properties.employees.maximum = 10_000_000;
    widened.properties.fax = { 'x-label': { de: 'Fax', en: 'Fax' }, type: 'string' };
    for (const after of [file(widened), publishFile('Any product', widened)]) {
      const result = await cli('question-sets:diff', before, after);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual([
        { pointer: '/employees', kind: 'RANGE_WIDENED', breaking: false, description: '"Employees" has a widened range' },
        { pointer: '/fax', kind: 'QUESTION_ADDED', breaking: false, description: '"Fax" is a new optional question' },
      ]);
    }
    expect(await cli('question-sets:diff', before, before)).toMatchObject({ code: 0, stdout: '[]\n' });

    const narrowed = cyber();
    narrowed.properties.turnover = structuredClone(narrowed.properties.turnover);
    (narrowed.properties.turnover.properties as Schema['properties']).currency.enum = ['EUR'];
    const breaking = await cli('question-sets:diff', before, file(narrowed));
    expect(breaking.code).toBe(1);
    expect(JSON.parse(breaking.stdout)).toEqual([
      { pointer: '/turnover/currency', kind: 'ENUM_VALUE_REMOVED', breaking: true, description: '"Currency" no longer takes "CHF"' },
    ]);

    // A removed question breaks only what insurers require: --required says which they do.
    const withoutMfa = cyber();
    delete withoutMfa.properties.mfa;
    const removed = file(withoutMfa);
    expect((await cli('question-sets:diff', before, removed)).code).toBe(0);
    const requiredRemoved = await cli('question-sets:diff', before, removed, '--required', '/employees', '/mfa');
    expect(requiredRemoved.code).toBe(1);
    expect(JSON.parse(requiredRemoved.stdout)).toEqual([
      expect.objectContaining({ pointer: '/mfa', kind: 'QUESTION_REMOVED', breaking: true }),
    ]);
  });

  it('as its own process, exits 1 on a breaking change with the changes as JSON on stdout', async () => {
    const breaking = cyber();
    breaking.required.push('mfa');
    const result = await spawnCli({}, 'question-sets:diff', file(cyberQuestionSet()), file(breaking));
    expect(result.code, result.stderr).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual([expect.objectContaining({ pointer: '/mfa', kind: 'BECAME_REQUIRED', breaking: true })]);
  }, 60_000); // a CLI process of its own: tens of seconds on a loaded machine

  it('exits 2 for a file it does not read and 1 for a schema that may not be published, naming its problems', async () => {
    const before = file(cyberQuestionSet());
    const notJson = await cli('question-sets:diff', before, file('not json'));
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/is not JSON/);
    expect(notJson.stdout).toBe('');
    expect((await cli('question-sets:diff', join(files, 'absent.json'), before)).code).toBe(2);

    const remote = cyber();
    remote.properties.x = { $ref: 'https://evil.example/schema.json', 'x-label': { de: 'x', en: 'x' } };
    const cyclic = { ...cyber(), $defs: { a: { $ref: '#/$defs/a' } } };
    const remoteFile = file(remote);
    const result = await cli('question-sets:diff', file(cyclic), remoteFile, '--json');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const [first, second] = result.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).error);
    expect(first.errors).toEqual([expect.objectContaining({ pointer: '/$defs' })]);
    expect(second).toEqual({
      code: 'BAD_USER_INPUT',
      message: `${remoteFile} is not a question set that may be published`,
      errors: [
        { pointer: '/properties/x/$ref', message: 'must refer to this document\'s own "#/$defs/<name>"; nothing is loaded from elsewhere' },
      ],
    });
  });
});

describe('question-sets:validate', () => {
  it("prints [] and exits 0 for answers that fit the product's latest version, and checks against the version given", async () => {
    const product = newProduct();
    await cli('question-sets:publish', publishFile(product));
    const answers = file(cyberAnswers());
    expect(await cli('question-sets:validate', product, answers)).toMatchObject({ code: 0, stdout: '[]\n' });

    const mfaRequired = cyber();
    mfaRequired.required.push('mfa');
    expect((await cli('question-sets:publish', publishFile(product, mfaRequired), '--acknowledge-breaking')).code).toBe(0);
    const { mfa: _unanswered, ...withoutMfa } = cyberAnswers();
    const latest = await cli('question-sets:validate', product, file(withoutMfa));
    expect(latest.code).toBe(1);
    expect(JSON.parse(latest.stdout)).toEqual([{ pointer: '/mfa', message: 'required' }]);
    expect(await cli('question-sets:validate', product, file(withoutMfa), '--version', '1')).toMatchObject({ code: 0, stdout: '[]\n' });
  });

  it('prints the same problems as saveRiskAnswers gives on submitting the same answers, and exits 1', async () => {
    const product = newProduct();
    await cli('question-sets:publish', publishFile(product));
    const tender = await createTender(scene.em(), scene.world, { product, invited: [] });
    const broker = await scene.token(Role.BROKER);
    const faulty: Record<string, unknown>[] = [
      { employees: 12, had_incident: true },
      {
        ...cyberAnswers(),
        employees: 'many',
        turnover: { amount: -1, currency: 'USD' },
        contact_email: 'not an address',
        locations: [{ building_value: 1 }, { city: 'Bonn', floors: 3 }],
        shoe_size: 44,
      },
      JSON.parse('{"__proto__": {"polluted": true}, "employees": 1, "turnover": {"__proto__": 1, "amount": 1, "currency": "EUR"}}'),
      { ...cyberAnswers(), type_of_business: 'x'.repeat(70 * 1024) },
    ];
    for (const answers of faulty) {
      const result = await cli('question-sets:validate', product, file(answers));
      const { body } = await graphql(scene.gateway, broker, SAVE, { tenderId: tender.id, answers });
      const problems = body.errors?.[0]?.extensions?.problems;
      expect(problems, JSON.stringify(body)).toEqual(expect.arrayContaining([expect.objectContaining({ pointer: expect.any(String) })]));
      expect(result.code).toBe(1);
      expect(JSON.parse(result.stdout)).toEqual(problems);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('exits 1 for an unknown product or version, saying so, and 2 for answers it does not read', async () => {
    const product = newProduct();
    await cli('question-sets:publish', publishFile(product));
    const answers = file(cyberAnswers());
    expect(await cli('question-sets:validate', 'No Such Product', answers)).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'NOT_FOUND: No question set is published for No Such Product\n',
    });
    expect(await cli('question-sets:validate', product, answers, '--version', '9')).toMatchObject({
      code: 1,
      stderr: `NOT_FOUND: No question set ${product} version 9\n`,
    });
    expect((await cli('question-sets:validate', product, answers, '--version', '0')).code).toBe(2);

    const hostile = {
      'is not JSON': '{"employees": ',
      'is larger than 256 KiB: not read': `{"type_of_business":"${'x'.repeat(10 * 1024 * 1024)}"}`,
      'nests deeper than 64 levels: not read': `{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
    };
    for (const [refusal, content] of Object.entries(hostile)) {
      const result = await cli('question-sets:validate', product, file(content));
      expect(result.code, refusal).toBe(2);
      expect(result.stdout, refusal).toBe('');
      expect(result.stderr, refusal).toContain(refusal);
    }
  });
});
