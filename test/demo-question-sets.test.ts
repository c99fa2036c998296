import { readFileSync } from 'node:fs';
import Ajv2020, { type ErrorObject } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { questionSetProblems } from '../src/risk';
import { DEMO_QUESTION_SETS, demoAnswers, demoRequirements } from '../src/seed/demo-question-sets';

/**
 * The demo's question sets as a renderer, the gateway's validation and the simulated insurers meet them: each set
 * keeps the format's rules (docs/risk-assessment.md), labels every question in German and English, accepts the
 * demo's answers, refuses answers that skip a conditional question, and the insurers' requirements name its questions.
 */

type Schema = Record<string, any>;

const ANNOTATIONS = ['x-label', 'x-help', 'x-order', 'x-unit', 'x-personal-data'];
const FORMATS = ['date', 'date-time', 'email', 'uri', 'uuid'] as const;
const SIMULATED_INSURERS = 8;

/**
 * Strict Ajv that knows the annotations and the allowed formats only: a typo in a keyword or a format fails. Not
 * strictRequired: it refuses a `then` that requires a question declared in the parent's `properties`, the very shape
 * of a conditional question.
 */
function compile(schema: Schema) {
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
  addFormats(ajv, [...FORMATS]);
  ajv.addVocabulary(ANNOTATIONS);
  return ajv.compile(schema);
}

/** A seeded generator (mulberry32): the same answers on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const resolve = (root: Schema, node: Schema): Schema => (node.$ref ? root.$defs[node.$ref.slice('#/$defs/'.length)] : node);

interface Question {
  /** Where its answer sits, `*` standing for any item of a repeatable group. */
  path: string[];
  schema: Schema;
}
interface Rule {
  path: string[];
  /** The question whose answer `true` asks the others. */
  when: string;
  asks: string[];
  kind: 'if/then' | 'dependentRequired';
}

/** Every question (an entry under `properties`, outside an `if`) and every conditional rule, where its answers sit. */
function survey(root: Schema) {
  const questions: Question[] = [];
  const rules: Rule[] = [];
  const visit = (node: Schema, path: string[]) => {
    const schema = resolve(root, node);
    for (const [name, child] of Object.entries<Schema>(schema.properties ?? {})) {
      questions.push({ path: [...path, name], schema: child });
      visit(child, [...path, name]);
    }
    if (schema.items) visit(schema.items, [...path, '*']);
    for (const { if: condition, then } of schema.allOf ?? []) {
      const [when, ...others] = Object.keys(condition.properties);
      expect(others, 'a condition tests one question').toEqual([]);
      expect(condition.properties[when], 'a condition is "this question answered true"').toEqual({ const: true });
      expect(condition.required).toEqual([when]);
      rules.push({ path, when, asks: then.required, kind: 'if/then' });
    }
    for (const [when, asks] of Object.entries<string[]>(schema.dependentRequired ?? {}))
      rules.push({ path, when, asks, kind: 'dependentRequired' });
  };
  visit(root, []);
  return { questions, rules };
}

/** Every object of `answers` at `path` (`*` expanding to each item), with its JSON pointer. */
function objectsAt(answers: unknown, path: string[], pointer = ''): { pointer: string; value: Record<string, unknown> }[] {
  if (answers === null || typeof answers !== 'object') return [];
  if (path.length === 0) return [{ pointer, value: answers as Record<string, unknown> }];
  const [head, ...rest] = path;
  if (head === '*') return (answers as unknown[]).flatMap((item, index) => objectsAt(item, rest, `${pointer}/${index}`));
  return objectsAt((answers as Record<string, unknown>)[head], rest, `${pointer}/${head}`);
}

/** Each JSON object inside `node`, with `$defs` and all: what a publication's limits look at. */
function* schemaNodes(node: unknown): Generator<Schema> {
  if (node === null || typeof node !== 'object') return;
  if (!Array.isArray(node)) yield node;
  for (const child of Object.values(node)) yield* schemaNodes(child);
}

const answersOf = (lineOfBusiness: string, count = 50, seed = 39) => {
  const random = seeded(seed);
  return Array.from({ length: count }, () => demoAnswers(lineOfBusiness, random));
};

const describeErrors = (errors: ErrorObject[] | null | undefined) => JSON.stringify(errors, null, 1);

describe.each(DEMO_QUESTION_SETS.map((set) => [set.lineOfBusiness, set.schema as Schema] as const))(
  'the demo question set of %s',
  (lineOfBusiness, schema) => {
    const { questions, rules } = survey(schema);

    it('compiles with strict Ajv (draft 2020-12, the five formats) and keeps the limits a publication enforces', () => {
      expect(() => compile(schema)).not.toThrow();
      // The gateway's own check at publication, besides this stricter one.
      expect(questionSetProblems(schema)).toEqual([]);
      expect(Buffer.byteLength(JSON.stringify(schema))).toBeLessThanOrEqual(128 * 1024);
      expect(schema.type).toBe('object');
      const defs = Object.keys(schema.$defs ?? {});
      for (const node of schemaNodes(schema)) {
        for (const forbidden of ['$id', '$anchor', '$dynamicRef', '$dynamicAnchor', '$recursiveRef'])
          expect(node).not.toHaveProperty(forbidden);
        if (node.$ref !== undefined) expect(defs.map((name) => `#/$defs/${name}`)).toContain(node.$ref);
        if (node.format !== undefined) expect(FORMATS).toContain(node.format);
        if (node.pattern !== undefined) expect(() => RE2JS.compile(node.pattern), node.pattern).not.toThrow();
        if (node.type === 'array') expect(node.maxItems, 'an array has a maxItems').toBeLessThanOrEqual(1000);
        if (node.type === 'object') expect(node.additionalProperties, 'an object refuses unknown answers').toBe(false);
      }
      // Acyclic: no definition reaches itself through its references.
      const refsOf = (name: string) =>
        [...schemaNodes(schema.$defs[name])].flatMap((node) => (node.$ref ? [node.$ref.slice('#/$defs/'.length)] : []));
      const reaches = (from: string, seen: string[]): boolean => refsOf(from).some((to) => seen.includes(to) || reaches(to, [...seen, to]));
      for (const name of defs) expect(reaches(name, [name]), name).toBe(false);
    });

    it('labels every question in German and English, orders it among its siblings and names its unit as a string', () => {
      expect(questions.length).toBeGreaterThanOrEqual(12);
      for (const { path, schema: question } of questions) {
        const where = path.join('/');
        expect(question['x-label'], where).toEqual({ de: expect.stringMatching(/\S/), en: expect.stringMatching(/\S/) });
        if (question['x-help'] !== undefined)
          expect(question['x-help'], where).toEqual({ de: expect.stringMatching(/\S/), en: expect.stringMatching(/\S/) });
        if (question['x-unit'] !== undefined) expect(question['x-unit'], where).toEqual(expect.stringMatching(/\S/));
        expect(Number.isInteger(question['x-order']), where).toBe(true);
      }
      const orders = new Map<string, number[]>();
      for (const { path, schema: question } of questions) {
        const parent = `/${path.slice(0, -1).join('/')}`;
        orders.set(parent, [...(orders.get(parent) ?? []), question['x-order']]);
      }
      for (const [parent, siblings] of orders)
        expect(new Set(siblings).size, `x-order among the questions of ${parent}`).toBe(siblings.length);
    });

    it("marks every name, e-mail address and phone number as personal data, the contact person's among them", () => {
      const personal = questions.filter(({ path }) => ['name', 'email', 'phone'].includes(path.at(-1)!));
      expect(personal.map(({ path }) => path.join('/'))).toEqual(expect.arrayContaining(['contact_person/name', 'contact_person/email']));
      for (const { path, schema: question } of personal) expect(question['x-personal-data'], path.join('/')).toBe(true);
    });

    it('accepts 50 varied demo answers, each under 64 KiB, and the same generator gives the same answers', () => {
      const validate = compile(schema);
      const answers = answersOf(lineOfBusiness);
      for (const answer of answers) {
        expect(validate(answer), describeErrors(validate.errors)).toBe(true);
        expect(Buffer.byteLength(JSON.stringify(answer))).toBeLessThanOrEqual(64 * 1024);
      }
      expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(50);
      expect(answersOf(lineOfBusiness)).toEqual(answers);
    });

    it('asks each conditional question exactly when its condition holds: an answer that skips it is refused', () => {
      expect(rules.length).toBeGreaterThan(0);
      const validate = compile(schema);
      for (const rule of rules) {
        const where = `${rule.kind} ${rule.path.join('/')}/${rule.when}`;
        const holding = answersOf(lineOfBusiness).flatMap((answer) =>
          objectsAt(answer, rule.path)
            .filter(({ value }) => (rule.kind === 'if/then' ? value[rule.when] === true : value[rule.when] !== undefined))
            .map(({ pointer }) => ({ answer, pointer })),
        );
        expect(holding.length, `demo answers where ${where} holds`).toBeGreaterThan(0);
        const { answer, pointer } = holding[0];
        for (const asked of rule.asks) {
          const skipped = structuredClone(answer);
          delete objectsAt(skipped, rule.path).find((found) => found.pointer === pointer)!.value[asked];
          expect(validate(skipped), `${where} without ${asked}`).toBe(false);
          expect(validate.errors).toContainEqual(
            expect.objectContaining({
              instancePath: pointer,
              keyword: rule.kind === 'if/then' ? 'required' : rule.kind,
              params: expect.objectContaining({ missingProperty: asked }),
            }),
          );
        }
        // Without the condition the same questions may stay unanswered: the rule, not a plain `required`, asks them.
        const notHolding = structuredClone(answer);
        const object = objectsAt(notHolding, rule.path).find((found) => found.pointer === pointer)!.value;
        if (rule.kind === 'if/then') object[rule.when] = false;
        else delete object[rule.when];
        for (const asked of rule.asks) delete object[asked];
        expect(validate(notHolding), `${where} not holding: ${describeErrors(validate.errors)}`).toBe(true);
      }
    });

    it("gives each simulated insurer its own requirements: the spec's fields and more, all questions every demo answer holds", () => {
      const requirements = Array.from({ length: SIMULATED_INSURERS }, (_, index) => demoRequirements(index, lineOfBusiness));
      expect(new Set(requirements.map((pointers) => [...pointers].sort().join(' '))).size).toBe(SIMULATED_INSURERS);
      expect(demoRequirements(SIMULATED_INSURERS, lineOfBusiness)).toEqual(requirements[0]);
      const objectQuestions = new Set(questions.filter(({ path }) => !path.includes('*')).map(({ path }) => `/${path.join('/')}`));
      const answers = answersOf(lineOfBusiness);
      for (const pointers of requirements) {
        expect(pointers).toEqual(expect.arrayContaining(['/turnover', '/type_of_business']));
        expect(pointers.length).toBeGreaterThan(2);
        for (const pointer of pointers) {
          expect(objectQuestions, `${pointer} names a question outside any repeatable group`).toContain(pointer);
          const [parent, name] = [pointer.split('/').slice(1, -1), pointer.split('/').at(-1)!];
          for (const answer of answers) expect(objectsAt(answer, parent)[0]?.value, pointer).toHaveProperty([name]);
        }
      }
    });
  },
);

describe('the demo question sets', () => {
  it('cover the lines of business Cyber, D&O and Property; another line has neither requirements nor answers', () => {
    expect(DEMO_QUESTION_SETS.map((set) => set.lineOfBusiness)).toEqual(['Cyber', 'D&O', 'Property']);
    expect(() => demoRequirements(0, 'Marine')).toThrow(/Marine.*Cyber, D&O, Property/);
    expect(() => demoAnswers('Marine', Math.random)).toThrow(/Marine/);
    expect(() => demoRequirements(-1, 'Cyber')).toThrow(RangeError);
  });

  it('cannot be changed by a caller, so every use sees the shipped sets', () => {
    expect(() => {
      (DEMO_QUESTION_SETS[0].schema as Schema).type = 'array';
    }).toThrow(TypeError);
    expect(DEMO_QUESTION_SETS[0].schema.type).toBe('object');
  });
});

describe('the full example of docs/risk-assessment.md', () => {
  const docs = readFileSync('docs/risk-assessment.md', 'utf8');
  const between = (marker: string) =>
    JSON.parse(docs.split(`<!-- ${marker}:start -->\n\`\`\`json\n`)[1].split(`\`\`\`\n<!-- ${marker}:end -->`)[0]);

  it('is a valid question set that accepts the example answers, refuses them without the loss amount, not without any loss', () => {
    const schema = between('question-set-example');
    const validate = compile(schema);
    const answers = between('answers-example');
    expect(validate(answers), describeErrors(validate.errors)).toBe(true);
    const { prior_losses_amount: _amount, ...withoutAmount } = answers;
    expect(validate(withoutAmount)).toBe(false);
    const { prior_losses_description: _description, ...withoutLosses } = withoutAmount;
    expect(validate({ ...withoutLosses, prior_losses: false }), describeErrors(validate.errors)).toBe(true);
    expect(survey(schema).questions.every(({ schema: question }) => question['x-label']?.de && question['x-label']?.en)).toBe(true);
  });
});
