import { describe, expect, it } from 'vitest';
import { answersShapeProblems, answersValidator } from '../src/risk/question-sets/answers-validator';
import { pickAnswers, replacePersonalAnswers } from '../src/risk/question-sets/answers-projection';
import { questionSetProblems } from '../src/risk/question-sets/question-set-check';
import { diffQuestionSets } from '../src/risk/question-sets/question-set-diff';
import { cyberAnswers, cyberQuestionSet } from './helpers/question-sets';

/** Issue 39: what may be published, how answers are checked, and what a new version breaks; pure, no gateway. */
type Schema = Record<string, any>;
const label = { 'x-label': { de: 'Frage', en: 'Question' } };
const withQuestion = (question: Schema): Schema => ({
  ...cyberQuestionSet(),
  properties: { ...(cyberQuestionSet().properties as Schema), extra: { ...label, ...question } },
});
const pointers = (problems: { pointer: string }[]) => problems.map((problem) => problem.pointer);

describe('a question set may be published', () => {
  it('when it is a 2020-12 schema of labelled questions with a condition and a repeatable group', () => {
    expect(questionSetProblems(cyberQuestionSet())).toEqual([]);
  });

  it.each([
    ['a remote $ref', { $ref: 'https://evil.example/schema.json' }, '/properties/extra/$ref'],
    ['a $ref to a definition that is not there', { $ref: '#/$defs/nothing' }, '/properties/extra/$ref'],
    ['a $dynamicRef', { $dynamicRef: '#meta' }, '/properties/extra/$dynamicRef'],
    ['an $id', { $id: 'https://evil.example/id' }, '/properties/extra/$id'],
    ['a backreference RE2 cannot run', { type: 'string', pattern: '(a)\\1' }, '/properties/extra/pattern'],
    ['a lookahead RE2 cannot run', { type: 'string', pattern: '^(?=a)a$' }, '/properties/extra/pattern'],
    ['an unknown format', { type: 'string', format: 'credit-card' }, '/properties/extra/format'],
    ['an unknown annotation', { type: 'string', 'x-colour': 'red' }, '/properties/extra/x-colour'],
    ['a label in one language only', { type: 'string', 'x-label': { en: 'Only English' } }, '/properties/extra/x-label'],
  ])('not with %s: refused at its pointer', (_case, question, pointer) => {
    expect(pointers(questionSetProblems(withQuestion(question)))).toContain(pointer);
  });

  it('not with definitions that refer to each other (a recursion bomb), nor a question without a label', () => {
    const recursive = {
      type: 'object',
      additionalProperties: false,
      $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } },
      properties: { x: { ...label, $ref: '#/$defs/a' } },
    };
    expect(questionSetProblems(recursive)).toEqual([
      expect.objectContaining({ pointer: '/$defs', message: expect.stringContaining('a → b → a') }),
    ]);
    expect(
      pointers(questionSetProblems({ type: 'object', additionalProperties: false, properties: { nameless: { type: 'string' } } })),
    ).toEqual(['/properties/nameless']);
  });

  it('not with an object of questions open to other answers, nor a repeatable group without a bound', () => {
    expect(questionSetProblems({ ...cyberQuestionSet(), additionalProperties: true })).toEqual([
      { pointer: '', message: 'an object of questions needs "additionalProperties": false' },
    ]);
    expect(pointers(questionSetProblems(withQuestion({ type: 'array', items: { type: 'string' } })))).toEqual(['/properties/extra']);
  });

  it('not with a typo Ajv does not know (strict), nor larger or deeper than the limits', () => {
    expect(questionSetProblems(withQuestion({ type: 'string', maxLenght: 3 }))).toEqual([
      { pointer: '', message: expect.stringContaining('maxLenght') },
    ]);
    let deep: Schema = { type: 'object' };
    for (let i = 0; i < 60; i++) deep = { type: 'object', properties: { x: { ...label, ...deep } } };
    expect(questionSetProblems(deep)).toEqual([{ pointer: '', message: 'must nest at most 48 levels deep' }]);
    const big = withQuestion({ type: 'string', enum: Array.from({ length: 20_000 }, (_, i) => `value ${i}`) });
    expect(questionSetProblems(big)).toEqual([{ pointer: '', message: 'must be at most 128 KiB of JSON' }]);
  });

  it('not with a question named __proto__; an answer of that name is no question of the set', () => {
    const schema = JSON.parse(JSON.stringify(cyberQuestionSet()).replace('"mfa":', '"__proto__":')) as Schema;
    expect(questionSetProblems(schema)).toEqual([
      { pointer: '/properties/__proto__', message: 'is not allowed: no question takes the name "__proto__"' },
    ]);
    const answers = JSON.parse(JSON.stringify(cyberAnswers()).replace('"mfa":', '"__proto__":')) as Schema;
    expect(answersValidator('rules-cyber@1', cyberQuestionSet()).submitted(answers)).toEqual([
      { pointer: '/__proto__', message: 'not a question of this set' },
    ]);
  });
});

describe('answers to a version', () => {
  const validator = answersValidator('rules-cyber@1', cyberQuestionSet());

  it('fit when whole; a draft may lack required and conditional answers, a submission may not', () => {
    expect(validator.submitted(cyberAnswers())).toEqual([]);
    const partial = { employees: 3, had_incident: true };
    expect(validator.draft(partial)).toEqual([]);
    expect(validator.submitted(partial)).toEqual([
      { pointer: '/incident_description', message: 'required' },
      { pointer: '/turnover', message: 'required' },
      { pointer: '/type_of_business', message: 'required' },
    ]);
  });

  it('name each fault by its pointer, inside repeatable groups too', () => {
    const answers = { ...cyberAnswers(), employees: -1, locations: [{ city: 'Berlin' }, { building_value: 'much' }], fax: '030' };
    expect(validator.submitted(answers)).toEqual([
      { pointer: '/employees', message: 'must be >= 0' },
      { pointer: '/fax', message: 'not a question of this set' },
      { pointer: '/locations/1/building_value', message: 'must be number' },
      { pointer: '/locations/1/city', message: 'required' },
    ]);
  });

  it('run a pattern that would backtrack without bound in linear time, on RE2', () => {
    const schema = withQuestion({ type: 'string', pattern: '^(a+)+$' });
    const check = answersValidator('rules-redos@1', schema);
    expect(check.submitted({ ...cyberAnswers(), extra: `${'a'.repeat(100_000)}!` })).toEqual([
      { pointer: '/extra', message: 'must match pattern "^(a+)+$"' },
    ]);
    expect(check.submitted({ ...cyberAnswers(), extra: 'a'.repeat(100_000) })).toEqual([]);
  });

  it('are refused before any schema sees them when not an object, over 64 KiB, nested 10 000 deep, or 100 000 groups', () => {
    expect(answersShapeProblems([1, 2])).toEqual([{ pointer: '', message: 'must be a JSON object' }]);
    expect(answersShapeProblems({ notes: 'x'.repeat(10 * 1024 * 1024) })).toEqual([
      { pointer: '', message: 'must be at most 64 KiB of JSON' },
    ]);
    expect(answersShapeProblems(JSON.parse(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`))).toEqual([
      { pointer: '', message: 'must nest at most 16 levels deep' },
    ]);
    expect(answersShapeProblems({ locations: Array.from({ length: 100_000 }, () => ({ city: 'X' })) })).toEqual([
      { pointer: '', message: 'must be at most 64 KiB of JSON' },
    ]);
  });
});

describe('what an insurer receives, and what an erasure leaves', () => {
  it('only the subtrees of the pointers it requires', () => {
    expect(pickAnswers(cyberAnswers(), ['/employees', '/turnover/amount', '/nothing'])).toEqual({
      employees: 42,
      turnover: { amount: 5_000_000 },
    });
  });

  it('the personal answers emptied, everything else as it was', () => {
    const erased = replacePersonalAnswers(cyberQuestionSet(), cyberAnswers(), () => '');
    expect(erased).toEqual({ ...cyberAnswers(), contact_email: '' });
  });
});

describe('a new version against the one before', () => {
  const next = (change: (schema: Schema) => void): Schema => {
    const schema = cyberQuestionSet() as Schema;
    change(schema);
    return schema;
  };
  const diff = (change: (schema: Schema) => void, required?: Set<string>) =>
    diffQuestionSets(cyberQuestionSet(), next(change), required).map(({ pointer, kind, breaking }) => ({ pointer, kind, breaking }));

  it.each([
    [
      'a new required question',
      (s: Schema) => ((s.properties.fax = { ...label, type: 'string' }), s.required.push('fax')),
      { pointer: '/fax', kind: 'QUESTION_ADDED', breaking: true },
    ],
    [
      'a question that became required',
      (s: Schema) => s.required.push('mfa'),
      { pointer: '/mfa', kind: 'BECAME_REQUIRED', breaking: true },
    ],
    [
      'a removed enum value',
      (s: Schema) => (s.properties.turnover.properties.currency.enum = ['EUR']),
      { pointer: '/turnover/currency', kind: 'ENUM_VALUE_REMOVED', breaking: true },
    ],
    [
      'a narrowed range',
      (s: Schema) => (s.properties.employees.maximum = 500),
      { pointer: '/employees', kind: 'RANGE_NARROWED', breaking: true },
    ],
    [
      'a narrowed type',
      (s: Schema) => (s.properties.type_of_business.type = 'integer'),
      { pointer: '/type_of_business', kind: 'TYPE_NARROWED', breaking: true },
    ],
    [
      'a new pattern',
      (s: Schema) => (s.properties.type_of_business.pattern = '^[A-Z]'),
      { pointer: '/type_of_business', kind: 'PATTERN_CHANGED', breaking: true },
    ],
    [
      'a changed condition',
      (s: Schema) => (s.then = { required: ['incident_description', 'mfa'] }),
      { pointer: '', kind: 'CONDITION_CHANGED', breaking: true },
    ],
    [
      'a new optional question',
      (s: Schema) => (s.properties.fax = { ...label, type: 'string' }),
      { pointer: '/fax', kind: 'QUESTION_ADDED', breaking: false },
    ],
    [
      'a new label',
      (s: Schema) => (s.properties.employees['x-label'] = { de: 'Mitarbeitende', en: 'Staff' }),
      { pointer: '/employees', kind: 'ANNOTATION_CHANGED', breaking: false },
    ],
    [
      'a widened range',
      (s: Schema) => (s.properties.employees.maximum = 9_000_000),
      { pointer: '/employees', kind: 'RANGE_WIDENED', breaking: false },
    ],
    [
      'an added enum value',
      (s: Schema) => s.properties.turnover.properties.currency.enum.push('USD'),
      { pointer: '/turnover/currency', kind: 'ENUM_VALUE_ADDED', breaking: false },
    ],
    [
      'a question that became optional',
      (s: Schema) => s.required.splice(s.required.indexOf('employees'), 1),
      { pointer: '/employees', kind: 'BECAME_OPTIONAL', breaking: false },
    ],
    [
      'a removed question no insurer requires',
      (s: Schema) => delete s.properties.mfa,
      { pointer: '/mfa', kind: 'QUESTION_REMOVED', breaking: false },
    ],
  ])('%s', (_case, change, expected) => {
    expect(diff(change)).toEqual([expected]);
  });

  it('a removed question is breaking when an insurer requires it, or something inside it', () => {
    expect(diff((s) => delete s.properties.mfa, new Set(['/mfa']))).toEqual([
      { pointer: '/mfa', kind: 'QUESTION_REMOVED', breaking: true },
    ]);
    expect(diff((s) => delete s.properties.locations, new Set(['/locations'])).filter((change) => change.pointer === '/locations')).toEqual(
      [{ pointer: '/locations', kind: 'QUESTION_REMOVED', breaking: true }],
    );
  });
});
